"""Would the reader's answer check pay? Replays `Context.verify_below` on recorded runs.

A run made with `--set verify_below=0.0` asks the reader, in a chat of its own after each
answer, whether the passages state it, and records its P(yes) per candidate (`verified`) but
never abstains on it (P >= 0). `finalize` reads the check last, so replaying a threshold T on
such a run is exact: each answered record whose chosen (first) candidate has `verified` < T
becomes an abstention, and nothing else changes.

`--dev` sweeps T over the pooled runs and picks the one with the most right outcomes
(answerable right, unanswerable declined) among those that abstain on at most `--max-lost` of
the answerable questions the run got right; ties go to the lower T. `--below T` replays one
threshold, with paired intervals against the run as recorded; `--out` writes its records for
`bench.reports.by_kind` and `bench.harness.paired`.

    python -m bench.reports.verify_replay RUN/records.jsonl [RUN2 ...] --dev
    python -m bench.reports.verify_replay RUN --below 0.7 --out REPLAYED
"""

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bench.harness.judge_metrics import roc_auc
from bench.harness.metrics import is_answerable
from bench.harness.paired import paired_values
from bench.harness.records import Record, read_run, write_records
from bench.reports.rescore_answers import right_today
from nodes.finalize import NOT_IN_DOCUMENTS

__all__ = ["Replay", "checked", "main", "replay", "separation", "sweep"]

_GRID = tuple(round(0.2 + 0.02 * i, 2) for i in range(36))
"""Thresholds tried by `--dev`: 0.20, 0.22, ..., 0.90."""


def checked(record: Record) -> float | None:
    """Return the P(yes) of the record's chosen candidate, if it was asked."""
    first = record.candidates[0] if record.candidates else {}
    value = first.get("verified")
    return float(value) if value is not None else None


def _declined(record: Record) -> Record:
    return replace(record, prediction=NOT_IN_DOCUMENTS, abstained=True, em=0.0, f1=0.0, acc=0.0)


@dataclass(frozen=True)
class Replay:
    """One threshold's outcome over the records."""

    below: float
    n: int
    abstained: int
    """Answers the check turned into abstentions."""
    right_lost: int
    """Of those, answerable questions the run had right."""
    declined_gained: int
    """Of those, unanswerable questions (now declined)."""
    outcomes: dict[str, float]
    """Per question: 1.0 right outcome, else 0.0."""
    records: list[Record]

    @property
    def right(self) -> float:
        """Mean right outcome."""
        return sum(self.outcomes.values()) / max(1, self.n)


def replay(records: Sequence[Record], below: float) -> Replay:
    """Return the run as it would be had `finalize` abstained below `below`."""
    outcomes: dict[str, float] = {}
    out: list[Record] = []
    abstained = lost = gained = 0
    for record in records:
        value = checked(record)
        if not record.abstained and value is not None and value < below:
            abstained += 1
            lost += is_answerable(record.answers) and right_today(record) > 0
            gained += not is_answerable(record.answers)
            record = _declined(record)
        out.append(record)
        outcomes[f"{record.dataset}/{record.id}"] = right_today(record)
    return Replay(below, len(records), abstained, lost, gained, outcomes, out)


def sweep(records: Sequence[Record], *, max_lost: float) -> tuple[Replay, list[Replay]]:
    """Return the threshold chosen by the rule in the module's docstring, and every one tried."""
    right = sum(is_answerable(r.answers) and right_today(r) > 0 for r in records)
    tried = [replay(records, below) for below in _GRID]
    allowed = [t for t in tried if t.right_lost <= max_lost * right]
    none = replay(records, 0.0)
    return max(allowed, key=lambda t: (t.right, -t.below), default=none), tried


def separation(records: Sequence[Record]) -> float:
    """Return the check's ROC AUC on the answered records: right answers against the rest."""
    asked = [(r, value) for r in records if not r.abstained and (value := checked(r)) is not None]
    labels = [int(is_answerable(r.answers) and right_today(r) > 0) for r, _ in asked]
    return roc_auc(labels, [value for _, value in asked])


def _records(paths: Sequence[Path]) -> list[Record]:
    found = [r for path in paths for r in read_run(path) if r.error is None]
    if not any(checked(r) is not None for r in found):
        raise SystemExit("no record holds the reader's check: run with --set verify_below=0.0")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Print the sweep (`--dev`) or one threshold's replay, paired with the run as recorded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", help="runs made with verify_below=0.0")
    parser.add_argument("--dev", action="store_true", help="choose the threshold")
    parser.add_argument(
        "--max-lost",
        type=float,
        default=0.03,
        help="with --dev: share of the right answers the check may turn away (default 0.03)",
    )
    parser.add_argument("--below", type=float, help="abstain where P(yes) is below this")
    parser.add_argument("--out", type=Path, help="write the replayed records to this folder")
    args = parser.parse_args(argv)
    records = _records(args.runs)
    print(f"AUC of the check, right answers against the rest: {separation(records):.3f}")  # noqa: T201
    if args.dev:
        chosen, tried = sweep(records, max_lost=args.max_lost)
        print("| below | abstained | right lost | unanswerable declined | right % |")  # noqa: T201
        print("|---:|---:|---:|---:|---:|")  # noqa: T201
        for t in tried:
            cells = f"{t.abstained} | {t.right_lost} | +{t.declined_gained} | {100 * t.right:.1f}"
            print(f"| {t.below:.2f} | {cells} |")  # noqa: T201
        print(f"\nchosen: below {chosen.below:.2f}")  # noqa: T201
    elif args.below is None:
        raise SystemExit("give --dev to choose a threshold, or --below to replay one")
    else:
        chosen = replay(records, args.below)
    recorded = replay(records, 0.0)
    print(  # noqa: T201 - CLI output
        f"{chosen.n} questions; right = answerable right or unanswerable declined; "
        f"recorded {100 * recorded.right:.1f}%, checked below {chosen.below:.2f} "
        f"{100 * chosen.right:.1f}% ({chosen.abstained} abstained: {chosen.right_lost} right "
        f"answers lost, {chosen.declined_gained} unanswerable declined)"
    )
    print(paired_values(chosen.outcomes, recorded.outcomes, metric="right, checked - recorded"))  # noqa: T201
    if args.out:
        write_records(args.out / "records.jsonl", chosen.records)
        print(f"wrote {args.out / 'records.jsonl'}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
