"""Would a cascade of readers pay? The small reader answers; the big one again where it is unsure.

Simulated from two runs of the same questions (one per reader, same strategy and commit): a
cascaded question costs the small run's seconds, plus the big run's when it escalates, and
takes the big run's outcome then. That is exactly a cascade that runs the question again with
the big reader (temperature 0, so the runs are its two halves); one that escalated only the
answer step would cost less.

The small reader's doubt is read from its own record, all of it known when it has answered:

- `logprob`: its answer's mean token log-probability (escalate the least probable);
- `agreement`: the word-overlap F1 of its two candidates (escalate where they disagree;
  one candidate counts as agreeing);
- `grade`: the evaluator's best grade of the first retrieval (escalate the weakest evidence);
- an abstention by the small reader always escalates (it may be the small reader's miss).

`--dev` sweeps every threshold of every signal and prints the cascade that answers best within
`--max-cost` of the big reader's mean seconds; `--signal S --below T` evaluates one cascade
(chosen on dev) on other runs, with paired intervals against both readers. `--out` writes the
cascade's records (the record it answers with per question, its seconds the cascade's), for
`bench.reports.by_kind` and `bench.harness.paired`.

    python -m bench.reports.cascade SMALL/records.jsonl BIG/records.jsonl --dev
    python -m bench.reports.cascade SMALL BIG --signal logprob --below -0.4 --out CASCADE
"""

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bench.harness.paired import paired_values
from bench.harness.records import Record, read_run, write_records
from bench.reports.rescore_answers import right_today
from models.answer_check import agreement

__all__ = ["SIGNALS", "Cascade", "cascade", "main", "sweep"]


def _agreement(record: Record) -> float:
    texts = [str(c.get("text", "")) for c in record.candidates]
    return agreement(texts[0], texts[1]) if len(texts) > 1 else 1.0


SIGNALS: dict[str, Callable[[Record], float | None]] = {
    "logprob": lambda r: r.logprob,
    "agreement": _agreement,
    "grade": lambda r: r.best_score,
}
"""The small reader's confidence per signal (higher is surer; None escalates)."""


@dataclass(frozen=True)
class Cascade:
    """A cascade's outcome over paired questions."""

    signal: str
    below: float
    n: int
    escalated: int
    right: float
    """Mean right outcome (`question_correct`: answerable right, unanswerable declined)."""
    seconds: float
    """Mean seconds per question (small run, plus the big run where escalated)."""
    outcomes: dict[str, float]
    """Per question id: 1.0 right, else 0.0."""
    records: list[Record]
    """Per question, the record the cascade answers with; its seconds are the cascade's."""


def _escalates(record: Record, signal: str, below: float) -> bool:
    value = SIGNALS[signal](record)
    return record.abstained or value is None or value < below


def cascade(
    small: dict[str, Record], big: dict[str, Record], *, signal: str, below: float
) -> Cascade:
    """Return the cascade that escalates the small reader's answers whose `signal` < `below`."""
    shared = sorted(small.keys() & big.keys())
    outcomes: dict[str, float] = {}
    records: list[Record] = []
    escalated = 0
    for key in shared:
        up = _escalates(small[key], signal, below)
        escalated += up
        answer = big[key] if up else small[key]
        seconds = small[key].seconds + (big[key].seconds if up else 0.0)
        model = f"{small[key].model}>{big[key].model}" if up else small[key].model
        records.append(replace(answer, seconds=seconds, stages={}, model=model))
        outcomes[key] = right_today(answer)
    n = len(shared)
    mean_seconds = sum(r.seconds for r in records) / n
    right = sum(outcomes.values()) / n
    return Cascade(signal, below, n, escalated, right, mean_seconds, outcomes, records)


def sweep(
    small: dict[str, Record], big: dict[str, Record], *, max_cost: float
) -> tuple[Cascade | None, list[Cascade]]:
    """Return the best cascade within `max_cost` x the big reader's seconds, and every one tried.

    Best: the most right outcomes, then the fewest seconds. Thresholds: every value a signal
    takes on these records (escalating below it), and -inf (escalate abstentions only).
    """
    shared = small.keys() & big.keys()
    budget = max_cost * sum(big[k].seconds for k in shared) / max(1, len(shared))
    tried = []
    for signal, read in SIGNALS.items():
        values = {v for r in small.values() if (v := read(r)) is not None}
        for below in sorted(values | {-math.inf}):
            tried.append(cascade(small, big, signal=signal, below=below))
    within = [c for c in tried if c.seconds <= budget]
    best = max(within, key=lambda c: (c.right, -c.seconds), default=None)
    return best, tried


def _by_id(path: Path, strategy: str | None) -> dict[str, Record]:
    records = [r for r in read_run(path) if r.error is None]
    strategies = {r.strategy for r in records}
    if strategy is None and len(strategies) > 1:
        raise SystemExit(f"{path} holds strategies {sorted(strategies)}: pass --strategy")
    return {f"{r.dataset}/{r.id}": r for r in records if strategy in (None, r.strategy)}


def _line(name: str, right: float, seconds: float, escalated: str = "") -> str:
    return f"| {name} | {100 * right:.1f} | {seconds:.1f} | {escalated} |"


def _print_frontier(tried: Sequence[Cascade]) -> None:
    """Print, per signal, the most right outcomes at each share of questions escalated."""
    print("| signal | escalated <= 10% | <= 25% | <= 50% | <= 75% |\n|---|---:|---:|---:|---:|")  # noqa: T201
    for signal in SIGNALS:
        mine = [c for c in tried if c.signal == signal]
        cells = []
        for share in (0.10, 0.25, 0.50, 0.75):
            fits = [c for c in mine if c.escalated <= share * c.n]
            best = max(fits, key=lambda c: (c.right, -c.seconds), default=None)
            cells.append(f"{100 * best.right:.1f} ({best.seconds:.1f} s)" if best else "-")
        print(f"| {signal} | {' | '.join(cells)} |")  # noqa: T201
    print()  # noqa: T201


def main(argv: Sequence[str] | None = None) -> int:
    """Print the two readers and the cascade (swept on dev, or one given) on paired questions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("small", type=Path, help="the small reader's run (folder or records)")
    parser.add_argument("big", type=Path, help="the big reader's run on the same questions")
    parser.add_argument("--strategy", help="the strategy to read when a run holds several")
    parser.add_argument("--dev", action="store_true", help="choose the signal and threshold")
    parser.add_argument(
        "--max-cost",
        type=float,
        default=0.8,
        help="with --dev: mean seconds at most this times the big reader's (default 0.8)",
    )
    parser.add_argument("--signal", choices=sorted(SIGNALS), default="logprob")
    parser.add_argument("--below", type=float, help="escalate where the signal is below this")
    parser.add_argument("--out", type=Path, help="write the cascade's records to this folder")
    args = parser.parse_args(argv)
    small, big = _by_id(args.small, args.strategy), _by_id(args.big, args.strategy)
    if not small.keys() & big.keys():
        raise SystemExit("the two runs share no question")
    if args.dev:
        chosen, tried = sweep(small, big, max_cost=args.max_cost)
        _print_frontier(tried)
        if chosen is None:
            print(f"no cascade costs at most {args.max_cost}x the big reader")  # noqa: T201
            return 1
    elif args.below is None:
        raise SystemExit("give --dev to choose a cascade, or --signal and --below to run one")
    else:
        chosen = cascade(small, big, signal=args.signal, below=args.below)
    keys = sorted(chosen.outcomes)
    readers = {"small": small, "big": big}
    alone = {name: {k: right_today(run[k]) for k in keys} for name, run in readers.items()}
    secs = {name: sum(run[k].seconds for k in keys) / len(keys) for name, run in readers.items()}
    rows = [_line(name, sum(alone[name].values()) / len(keys), secs[name]) for name in readers]
    label = f"cascade ({chosen.signal} < {chosen.below:.4g})"
    rows.append(_line(label, chosen.right, chosen.seconds, f"{chosen.escalated}/{chosen.n}"))
    print(  # noqa: T201 - CLI output
        f"{len(keys)} questions; right = answerable right or unanswerable declined\n\n"
        "| reader | right % | mean s/q | escalated |\n|---|---:|---:|---:|\n" + "\n".join(rows)
    )
    for name in ("big", "small"):
        print(paired_values(chosen.outcomes, alone[name], metric=f"right, cascade - {name}"))  # noqa: T201
    print(f"seconds, cascade / big: {chosen.seconds / secs['big']:.2f}x")  # noqa: T201
    if args.out:
        write_records(args.out / "records.jsonl", chosen.records)
        print(f"wrote {args.out / 'records.jsonl'}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
