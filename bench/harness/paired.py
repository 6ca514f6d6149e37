"""Paired bootstrap: is one run's score above another's on the same questions, beyond noise?

python -m bench.harness.paired docs/bench/readers/A/records.jsonl docs/bench/readers/B/records.jsonl
python -m bench.harness.paired --rewrites A/rewrites.jsonl B/rewrites.jsonl   # follow-up rewrites
python -m bench.harness.paired --drop 0.5 A/records.jsonl B/records.jsonl      # robustness runs
python -m bench.harness.paired --loss 0 0.5 --strategy-a single --strategy-b crag A B   # Acc lost
"""

import argparse
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness.records import Record, read_records
from bench.harness.turn_records import read_records as turn_records
from bench.harness.turn_records import rewrite_scores

__all__ = ["Difference", "acc_lost", "main", "paired_difference", "paired_values"]


@dataclass(frozen=True)
class Difference:
    """Mean of `a - b` over paired questions, in points, with a bootstrap 95% interval."""

    metric: str
    n: int
    mean: float
    low: float
    high: float

    def __str__(self) -> str:
        """Return e.g. `F1 +17.1 [+9.8, +24.6] (n=60)`."""
        return f"{self.metric} {self.mean:+.1f} [{self.low:+.1f}, {self.high:+.1f}] (n={self.n})"


def _by_question(records: Sequence[Record], strategy: str | None) -> dict[tuple[str, str], Record]:
    return {
        (r.dataset, r.id): r
        for r in records
        if r.error is None and (strategy is None or r.strategy == strategy)
    }


def paired_difference(
    a: Sequence[Record],
    b: Sequence[Record],
    *,
    metric: str = "f1",
    strategy_a: str | None = None,
    strategy_b: str | None = None,
    resamples: int = 2000,
    seed: int = 0,
) -> Difference:
    """Return the mean difference a - b (x100) over shared questions and its 95% interval."""
    left, right = _by_question(a, strategy_a), _by_question(b, strategy_b)
    return paired_values(
        {k: getattr(r, metric) for k, r in left.items()},
        {k: getattr(r, metric) for k, r in right.items()},
        metric=metric,
        resamples=resamples,
        seed=seed,
    )


def paired_values(
    a: Mapping[Any, float],
    b: Mapping[Any, float],
    *,
    metric: str,
    resamples: int = 2000,
    seed: int = 0,
) -> Difference:
    """Return the mean of `a - b` (x100) over the keys both hold, and its 95% interval."""
    shared = sorted(a.keys() & b.keys(), key=repr)
    if not shared:
        raise ValueError("the two runs share no question")
    diffs = [100 * (a[k] - b[k]) for k in shared]
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(diffs) for _ in diffs) / len(diffs) for _ in range(resamples))
    low, high = means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]
    return Difference(metric.upper(), len(shared), sum(diffs) / len(diffs), low, high)


def acc_lost(
    records: Sequence[Record], start: float, end: float, *, strategy: str | None = None
) -> dict[tuple[str, str], float]:
    """Return each question's Acc at `start` of gold dropped minus its Acc at `end`."""

    def acc_at(drop: float) -> dict[tuple[str, str], float]:
        dropped = [r for r in records if r.drop_gold == drop]
        return {k: r.acc for k, r in _by_question(dropped, strategy).items()}

    before, after = acc_at(start), acc_at(end)
    return {k: before[k] - after[k] for k in before.keys() & after.keys()}


def main(argv: Sequence[str] | None = None) -> int:
    """Print EM, F1 and Acc differences between two records files (or two strategies)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="records.jsonl of run A")
    parser.add_argument("b", type=Path, help="records.jsonl of run B (may be the same file)")
    parser.add_argument("--strategy-a", help="only this strategy's records of A")
    parser.add_argument("--strategy-b", help="only this strategy's records of B")
    parser.add_argument(
        "--rewrites",
        action="store_true",
        help="A and B are rewrites.jsonl files of `bench.suites.multiturn --rewrites-only`",
    )
    parser.add_argument(
        "--followups",
        action="store_true",
        help="A (and B) are records.jsonl files of a full `bench.suites.multiturn` run: "
        "Acc of each follow-up asked standalone minus asked in its thread",
    )
    parser.add_argument(
        "--drop", type=float, help="only the records with this share of gold passages dropped"
    )
    parser.add_argument(
        "--loss",
        nargs=2,
        type=float,
        metavar=("FROM", "TO"),
        help="Acc each question loses from one share of gold dropped to the other: A's loss "
        "minus B's",
    )
    args = parser.parse_args(argv)
    if args.followups:
        turns = [r for path in {args.a, args.b} for r in turn_records(path)]
        played = {(r.conversation, r.index): r for r in turns if r.index > 0 and r.error is None}
        solo = {k: r.solo_acc for k, r in played.items()}
        thread = {k: r.acc for k, r in played.items()}
        print(paired_values(solo, thread, metric="acc standalone - follow-up"))  # noqa: T201
        return 0
    if args.rewrites:
        left, right = rewrite_scores(args.a), rewrite_scores(args.b)
        print(paired_values(left, right, metric="rewrite right"))  # noqa: T201
        return 0
    a = list(read_records(args.a).values())
    b = list(read_records(args.b).values())
    if args.loss:
        lost_a = acc_lost(a, *args.loss, strategy=args.strategy_a)
        lost_b = acc_lost(b, *args.loss, strategy=args.strategy_b)
        print(paired_values(lost_a, lost_b, metric="acc lost, A - B"))  # noqa: T201
        return 0
    drops = {r.drop_gold for r in [*a, *b]}
    if args.drop is None and len(drops) > 1:
        parser.error(f"the records hold several shares of gold dropped {sorted(drops)}: --drop")
    if args.drop is not None:
        a, b = ([r for r in run if r.drop_gold == args.drop] for run in (a, b))
    for metric in ("em", "f1", "acc"):
        found = paired_difference(
            a, b, metric=metric, strategy_a=args.strategy_a, strategy_b=args.strategy_b
        )
        print(found)  # noqa: T201 - CLI output
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
