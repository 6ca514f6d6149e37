"""Each strategy against a reference strategy on the same questions, with paired intervals.

A cell reads `+3.1 [-1.0, +8.2]`: the mean of (strategy - reference) in points over the
questions both answered without error, and its bootstrap 95% interval from resampling those
questions together. On the average over datasets, questions are resampled within each
dataset and every dataset weighs the same, as in the main table. An interval that excludes
zero is a difference beyond noise; the table marks it with `*`.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bench.harness.metrics import is_answerable
from bench.harness.records import Record
from bench.harness.strategies import ordered_strategies
from bench.reports.summary import AVERAGE

__all__ = ["Interval", "difference", "versus_table"]

RESAMPLES = 2000


@dataclass(frozen=True)
class Interval:
    """A mean difference in points with its bootstrap 95% interval, over `n` paired questions."""

    mean: float
    low: float
    high: float
    n: int

    @property
    def beyond_noise(self) -> bool:
        """Tell whether the interval excludes zero."""
        return self.low > 0 or self.high < 0

    def __str__(self) -> str:
        """Return e.g. `+3.1 [-1.0, +8.2]`, with `*` when beyond noise."""
        mark = "*" if self.beyond_noise else ""
        return f"{self.mean:+.1f} [{self.low:+.1f}, {self.high:+.1f}]{mark}"


def _paired(
    records: Sequence[Record], strategy: str, reference: str, metric: str, share: float
) -> dict[str, list[float]]:
    """Return the per-question differences in points, grouped by dataset."""
    runs: dict[tuple[str, str, str], Record] = {
        (r.strategy, r.dataset, r.id): r
        for r in records
        if r.error is None and abs(r.drop_gold - share) < 1e-9 and is_answerable(r.answers)
    }
    groups: dict[str, list[float]] = {}
    for (name, dataset, qid), mine in runs.items():
        theirs = runs.get((reference, dataset, qid))
        if name == strategy and theirs is not None:
            change = getattr(mine, metric) - getattr(theirs, metric)
            groups.setdefault(dataset, []).append(100 * change)
    return groups


def difference(
    records: Sequence[Record],
    strategy: str,
    reference: str = "single",
    *,
    metric: str = "f1",
    share: float = 0.0,
    dataset: str = AVERAGE,
    seed: int = 0,
) -> Interval | None:
    """Return `strategy` minus `reference` on `dataset` (or the average), None if unpaired.

    The average needs the pair on every dataset either strategy ran on, as the main table's
    average does; otherwise it is None.
    """
    groups = _paired(records, strategy, reference, metric, share)
    if dataset != AVERAGE:
        groups = {dataset: groups[dataset]} if dataset in groups else {}
    else:
        ran = {r.dataset for r in records if r.strategy in (strategy, reference)}
        if set(groups) != ran:
            return None
    if not groups:
        return None
    rng = np.random.default_rng(seed)
    means = np.zeros(RESAMPLES)
    for diffs in groups.values():
        values = np.asarray(diffs)
        picks = rng.integers(0, len(values), size=(RESAMPLES, len(values)))
        means += values[picks].mean(axis=1)
    means /= len(groups)
    mean = float(np.mean([np.mean(d) for d in groups.values()]))
    low, high = np.percentile(means, [2.5, 97.5])
    return Interval(mean, float(low), float(high), sum(len(d) for d in groups.values()))


def versus_table(
    records: Sequence[Record], reference: str = "single", *, metric: str = "f1"
) -> str:
    """Return the Markdown table of every strategy minus `reference`, per dataset and average.

    Full-index runs only; "" when the reference did not run or nothing pairs with it.
    """
    full = [r for r in records if r.drop_gold == 0]
    if not any(r.strategy == reference for r in full):
        return ""
    datasets = sorted({r.dataset for r in full})
    columns = [*datasets, AVERAGE] if len(datasets) > 1 else datasets
    lines = []
    for strategy in ordered_strategies(r.strategy for r in full):
        if strategy == reference:
            continue
        cells = [difference(full, strategy, reference, metric=metric, dataset=d) for d in columns]
        if any(cells):
            lines.append(f"| {strategy} | " + " | ".join(str(c or "-") for c in cells) + " |")
    if not lines:
        return ""
    head = [f"| strategy | {' | '.join(columns)} |", "|---|" + "---:|" * len(columns)]
    return "\n".join(head + lines)
