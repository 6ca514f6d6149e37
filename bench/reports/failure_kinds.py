"""Where the wrong answers of a documentation run were lost, without running an LLM.

    python -m bench.reports.failure_kinds RECORDS.jsonl --ranks RETRIEVAL.json --k 4
        [--strategy single] [--out FILE.md]

`RETRIEVAL.json` is the output of `bench.suites.doc_retrieval` on the same set and split
(each question's rank of the first retrieved chunk that holds an answer alias as an exact
token). Each record of the run falls in one kind:

- `right`: an answerable question answered right (Acc), or an unanswerable one declined;
- `retrieval`: answered wrong and no alias in the top `k` chunks (the run's `top_k`);
- `reading`: answered wrong although an alias was in the top `k` chunks;
- `false abstention (retrieved)` / `false abstention (not retrieved)`: declined an
  answerable question, with or without an alias in the top `k`;
- `unanswerable answered`: answered a question the documents do not answer.

The plain strategies (`single`) keep every retrieved chunk whole as the reader's evidence, so
for them nothing is lost between retrieval and reading; for strategies that refine strips the
records do not say which strips were kept, so `reading` then also holds refinement's losses.
"""

import argparse
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.harness.metrics import is_answerable
from bench.harness.records import Record, read_records

__all__ = ["KINDS", "failure_kind", "failure_table", "main"]

KINDS = (
    "right",
    "reading",
    "retrieval",
    "false abstention (retrieved)",
    "false abstention (not retrieved)",
    "unanswerable answered",
)


def failure_kind(record: Record, token_rank: int | None, *, k: int) -> str:
    """Return the kind (one of `KINDS`) of one scored record, given its answer's rank."""
    retrieved = token_rank is not None and token_rank < k
    if not is_answerable(record.answers):
        return "right" if record.abstained else "unanswerable answered"
    if record.abstained:
        return "false abstention (retrieved)" if retrieved else "false abstention (not retrieved)"
    if record.acc >= 1.0:
        return "right"
    return "reading" if retrieved else "retrieval"


def failure_table(
    records: Sequence[Record], ranks: Mapping[str, Mapping[str, Any]], *, k: int
) -> tuple[Counter[str], list[str]]:
    """Return the count of each kind and one line per record that is not right."""
    counts: Counter[str] = Counter()
    lines = []
    for record in records:
        rank = (ranks.get(record.id) or {}).get("exact")
        kind = failure_kind(record, rank, k=k)
        counts[kind] += 1
        if kind != "right":
            shown = " ".join(record.prediction.split())[:60]
            lines.append(
                f"| {record.id} | {kind} | {rank if rank is not None else '-'} | "
                f"{', '.join(record.answers) or '(none)'} | {shown} |"
            )
    return counts, lines


def _markdown(counts: Counter[str], lines: list[str], k: int) -> str:
    total = sum(counts.values())
    out = ["| kind | questions |", "|---|---:|"]
    out += [f"| {kind} | {counts[kind]} |" for kind in KINDS] + [f"| all | {total} |", ""]
    out += [f"| id | kind | exact-token rank (kept: < {k}) | gold | prediction |"]
    out += ["|---|---|---:|---|---|", *lines]
    return "\n".join(out) + "\n"


def main() -> None:
    """Print (and optionally write) the failure kinds of a run as Markdown."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("records", type=Path)
    parser.add_argument("--ranks", type=Path, required=True)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--strategy", default="single")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    ranks = json.loads(args.ranks.read_text())["ranks"]
    records = [r for r in read_records(args.records).values() if r.strategy == args.strategy]
    text = _markdown(*failure_table(records, ranks, k=args.k), args.k)
    print(text, end="")  # noqa: T201 - the report is the output
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
