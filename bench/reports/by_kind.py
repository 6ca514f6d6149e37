"""A documentation run's outcomes by kind of question, as issue 39 states its goals.

Single-hop and two-hop Acc over the answerable questions of each kind (an abstention is
wrong; scored again with today's scorer, so runs scored under older rules compare), the
share of unanswerable questions declined, and the false-abstention rate on the answerable
ones; per strategy, from a run's records and the set's questions file (which holds each
question's `hop`).

    python -m bench.reports.by_kind docs/bench/docqa-test/acrag bench/datasets/docqa/test.jsonl
"""

import argparse
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from bench.datasets.check import question_kind
from bench.harness.records import Record, read_run
from bench.reports.rescore_answers import right_today

__all__ = ["KINDS", "by_kind", "main"]

KINDS = ("single-hop", "two-hop", "unanswerable")


def by_kind(
    records: Sequence[Record], kinds: dict[str, str]
) -> dict[str, dict[str, tuple[int, int]]]:
    """Return per strategy, per kind (and "false abstention"): (right or abstained, n)."""
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for r in records:
        kind = kinds.get(r.id)
        if kind is None or r.error:
            continue
        row = table[r.strategy]
        row[kind][0] += int(right_today(r) > 0)
        row[kind][1] += 1
        if kind != "unanswerable":
            row["false abstention"][0] += int(r.abstained)
            row["false abstention"][1] += 1
    return {s: {k: (v[0], v[1]) for k, v in row.items()} for s, row in table.items()}


def _cell(found: tuple[int, int] | None) -> str:
    if not found or not found[1]:
        return "-"
    hits, n = found
    return f"{100 * hits / n:.1f}% ({hits}/{n})"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table of a run's outcomes by kind of question."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run's folder or its records.jsonl")
    parser.add_argument("questions", type=Path, help="the set's questions (JSON lines)")
    args = parser.parse_args(argv)
    lines = args.questions.read_text(encoding="utf-8").splitlines()
    kinds = {str(q["id"]): question_kind(q) for q in map(json.loads, filter(str.strip, lines))}
    table = by_kind(read_run(args.run), kinds)
    print(  # noqa: T201 - CLI output
        "| strategy | single-hop Acc | two-hop Acc | unanswerable declined | false abstention |\n"
        "|---|---:|---:|---:|---:|"
    )
    for strategy, row in table.items():
        cells = [_cell(row.get(k)) for k in (*KINDS, "false abstention")]
        print(f"| {strategy} | {' | '.join(cells)} |")  # noqa: T201 - CLI output
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
