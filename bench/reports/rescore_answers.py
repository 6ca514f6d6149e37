"""Score a run's answers again with today's scorer and show what changed (no LLM).

Records keep the EM, F1 and Acc they were written with. When the scorer changes
(`bench.harness.metrics`, e.g. the command-line option rule of session 5), this prints, per
strategy, Acc on the answerable questions as recorded and as scored today, and every answer
whose Acc changed, so a table in the docs can be read against either rule.

    python -m bench.reports.rescore_answers docs/bench/docqa-readers-dev/qwen2.5-coder-1.5b ...
"""

import argparse
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.harness.metrics import is_answerable, question_correct, score_prediction
from bench.harness.records import Record, read_run

__all__ = ["Changed", "acc_today", "main", "rescored", "right_today"]


@dataclass(frozen=True)
class Changed:
    """One answer whose Acc differs under today's scorer."""

    record: Record
    now: float


def acc_today(record: Record) -> float:
    """Return the record's Acc under today's scorer (an abstention's sentence answers nothing)."""
    answer = "" if record.abstained else record.prediction
    return score_prediction(answer, record.answers).acc


def right_today(record: Record) -> float:
    """Return 1.0 for a right outcome under today's scorer (`metrics.question_correct`)."""
    return question_correct(record.answers, acc=acc_today(record), abstained=record.abstained)


def rescored(records: Sequence[Record]) -> dict[str, tuple[int, float, float, list[Changed]]]:
    """Return per strategy: answerable questions, Acc recorded, Acc today, the changes."""
    found: dict[str, list[tuple[Record, float]]] = defaultdict(list)
    for record in records:
        if record.error or not is_answerable(record.answers):
            continue
        found[record.strategy].append((record, acc_today(record)))
    table = {}
    for strategy, pairs in found.items():
        then = sum(r.acc for r, _ in pairs) / len(pairs)
        now = sum(acc for _, acc in pairs) / len(pairs)
        changed = [Changed(r, acc) for r, acc in pairs if acc != r.acc]
        table[strategy] = (len(pairs), then, now, changed)
    return table


def main(argv: Sequence[str] | None = None) -> int:
    """Print each folder's Acc as recorded and as scored today, with the answers that moved."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", help="run folders or records.jsonl files")
    args = parser.parse_args(argv)
    for run in args.runs:
        table = rescored(read_run(run))
        for strategy, (n, then, now, changed) in table.items():
            print(  # noqa: T201 - CLI output
                f"{run} {strategy}: {n} answerable, Acc {100 * then:.1f} recorded, "
                f"{100 * now:.1f} today ({len(changed)} changed)"
            )
            for c in changed:
                print(  # noqa: T201 - CLI output
                    f"  {c.record.dataset}/{c.record.id}: {c.record.acc:g} -> {c.now:g}  "
                    f"{c.record.prediction[:70]!r} gold {c.record.answers[:3]}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
