"""The issue's targets, checked against a run's averages (reported, never asserted).

1. Adaptive F1 at least IRCoT's, at no more than 40% of IRCoT's seconds per question.
2. Adaptive closes at least half of the F1 gap between single-step and the oracle.
3. CRAG with 50% of the gold dropped keeps at least 90% of its full-index accuracy.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from bench.records import Record
from bench.report import AVERAGE, summarize

__all__ = ["Target", "check_targets", "targets_table"]


@dataclass(frozen=True)
class Target:
    """One target: what it asks, what we measured, and whether it is met (None: not run)."""

    name: str
    measured: str
    met: bool | None


def _averages(records: Sequence[Record], share: float) -> dict[str, tuple[float, float, float]]:
    return {
        r.strategy: (r.f1, r.seconds, r.acc)
        for r in summarize(records, drop_gold=share)
        if r.dataset == AVERAGE
    }


def check_targets(records: Sequence[Record]) -> list[Target]:
    """Check every target that the records allow."""
    full = _averages(records, 0.0)
    found = []
    if "adaptive" in full and "ircot" in full:
        (f1, sec, _), (f1_c, sec_c, _) = full["adaptive"], full["ircot"]
        ratio = sec / sec_c if sec_c else float("inf")
        found.append(
            Target(
                "adaptive F1 >= IRCoT F1 at <= 40% of its time",
                f"F1 {100 * f1:.1f} vs {100 * f1_c:.1f}; time {ratio:.0%}",
                f1 >= f1_c and ratio <= 0.4,
            )
        )
    if {"adaptive", "single", "adaptive-oracle"} <= full.keys():
        f1, single, oracle = (full[s][0] for s in ("adaptive", "single", "adaptive-oracle"))
        gap = oracle - single
        closed = (f1 - single) / gap if gap > 0 else None
        found.append(
            Target(
                "adaptive closes >= half of the single-to-oracle F1 gap",
                "no gap" if closed is None else f"{closed:.0%} closed",
                None if closed is None else closed >= 0.5,
            )
        )
    half = _averages(records, 0.5)
    if "crag" in full and "crag" in half:
        kept = half["crag"][2] / full["crag"][2] if full["crag"][2] else None
        found.append(
            Target(
                "CRAG at 50% gold dropped keeps >= 90% of its Acc",
                "Acc 0 on the full index" if kept is None else f"{kept:.0%} kept",
                None if kept is None else kept >= 0.9,
            )
        )
    return found


def targets_table(records: Sequence[Record]) -> str:
    """Return the targets as a Markdown table ("" when none can be checked)."""
    found = check_targets(records)
    if not found:
        return ""
    verdict = {True: "met", False: "not met", None: "undecided"}
    lines = ["| target | measured | verdict |", "|---|---|---|"]
    lines += [f"| {t.name} | {t.measured} | {verdict[t.met]} |" for t in found]
    return "\n".join(lines)
