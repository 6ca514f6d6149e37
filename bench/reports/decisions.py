"""Does a decision run (`make bench-quick`) agree with the benchmark of record?

Every pair of strategies that both runs hold is compared the same way in each: the paired
difference of their F1 averaged over the datasets (`bench.reports.versus.difference`). A
comparison the record *resolves* (its interval excludes zero) is one the quick run must not
contradict: it **agrees** when its mean has the record's sign, **repeats** the decision
when its own interval also excludes zero, and **decides it the other way** (the failure
that matters) when its interval excludes zero on the other side; a quick mean of exactly 0
is a tie. Comparisons the record does not resolve are listed
for completeness; no agreement is asked of them (issue 40).

    python -m bench.reports.decisions docs/bench/full-dev docs/bench/quick-dev [--metric f1]
"""

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from bench.harness.records import Record, read_run
from bench.harness.strategies import ordered_strategies
from bench.reports.versus import Interval, difference

__all__ = ["Decision", "decisions", "decisions_table", "main"]


@dataclass(frozen=True)
class Decision:
    """One comparison `a - b` in the record and in the quick run."""

    a: str
    b: str
    record: Interval
    quick: Interval

    @property
    def resolved(self) -> bool:
        """Tell whether the record decides this comparison."""
        return self.record.beyond_noise

    @property
    def agrees(self) -> bool:
        """Tell whether the quick run's mean has the record's sign (asked where resolved)."""
        return (self.quick.mean > 0) == (self.record.mean > 0) and self.quick.mean != 0

    @property
    def repeats(self) -> bool:
        """Tell whether the quick run decides it too, the same way."""
        return self.agrees and self.quick.beyond_noise

    @property
    def contradicts(self) -> bool:
        """Tell whether the quick run decides it the other way (beyond noise, other sign)."""
        return self.quick.beyond_noise and not self.agrees


def decisions(
    record: Sequence[Record], quick: Sequence[Record], *, metric: str = "f1"
) -> list[Decision]:
    """Return every comparison of two strategies that both runs can make, on full indexes."""
    record = [r for r in record if r.drop_gold == 0]
    quick = [r for r in quick if r.drop_gold == 0]
    shared = set(r.strategy for r in record) & set(r.strategy for r in quick)
    found = []
    for a, b in combinations(ordered_strategies(shared), 2):
        then = difference(record, a, b, metric=metric)
        now = difference(quick, a, b, metric=metric)
        if then is not None and now is not None:
            found.append(Decision(a, b, then, now))
    return found


def decisions_table(found: Sequence[Decision]) -> str:
    """Return the Markdown table of the comparisons, the resolved ones first."""
    rows = sorted(found, key=lambda d: not d.resolved)
    lines = [
        "| comparison | record | n | quick | n | record resolves | quick agrees | quick repeats |",
        "|---|---:|---:|---:|---:|---|---|---|",
    ]
    for d in rows:
        asked = "yes" if d.resolved else "no"
        sign = "tie" if d.quick.mean == 0 else "**no**"
        agrees = ("yes" if d.agrees else sign) if d.resolved else "-"
        repeats = ("yes" if d.repeats else "no") if d.resolved else "-"
        lines.append(
            f"| {d.a} - {d.b} | {d.record} | {d.record.n} | {d.quick} | {d.quick.n} "
            f"| {asked} | {agrees} | {repeats} |"
        )
    resolved = [d for d in found if d.resolved]
    lines.append("")
    lines.append(
        f"{sum(d.agrees for d in resolved)} of {len(resolved)} resolved comparisons agree, "
        f"{sum(d.repeats for d in resolved)} repeated beyond noise, "
        f"{sum(d.contradicts for d in resolved)} decided the other way."
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the comparisons of the record and the quick run, and whether they agree."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record", type=Path, help="the benchmark of record's run folder")
    parser.add_argument("quick", type=Path, help="the decision run's folder")
    parser.add_argument("--metric", default="f1", choices=("em", "f1", "acc"))
    args = parser.parse_args(argv)
    found = decisions(read_run(args.record), read_run(args.quick), metric=args.metric)
    print(decisions_table(found))  # noqa: T201 - CLI output
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
