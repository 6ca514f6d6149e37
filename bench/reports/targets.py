"""The issues' goals, checked against one run (reported, never asserted).

1. The full graph's F1 is above single-step's, the paired interval excluding zero.
2. The full graph's F1 is above both tutorial baselines', the intervals excluding zero, at
   fewer LLM calls per question than the tutorial Self-RAG.
3. Adaptive F1 is at least IRCoT's, at no more than half of IRCoT's tokens.
4. Adaptive routing closes at least 30% of the Acc gap from single-step to the oracle route.
5. CRAG with 50% of the gold dropped keeps at least 90% of its full-index Acc, while
   single-step keeps less.

Each goal is checked on the run's average over datasets (the only dataset when there is one).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from bench.harness.records import Record
from bench.harness.strategies import BASELINES, ORACLE
from bench.reports.summary import AVERAGE, Summary, summarize
from bench.reports.versus import difference

__all__ = ["Target", "check_targets", "targets_table"]

FULL = "acrag"


@dataclass(frozen=True)
class Target:
    """One target: what it asks, what we measured, and whether it is met (None: undecided)."""

    name: str
    measured: str
    met: bool | None


def _averages(records: Sequence[Record], share: float) -> dict[str, Summary]:
    rows = summarize(records, drop_gold=share)
    datasets = {r.dataset for r in rows} - {AVERAGE}
    wanted = AVERAGE if len(datasets) > 1 else next(iter(datasets), AVERAGE)
    return {r.strategy: r for r in rows if r.dataset == wanted}


def _above(records: Sequence[Record], strategy: str, reference: str) -> tuple[str, bool]:
    found = difference(records, strategy, reference)
    if found is None:
        return f"{reference}: not paired", False
    return f"{reference} {found}", found.low > 0


def _full_graph(records: Sequence[Record], full: dict[str, Summary]) -> list[Target]:
    found = []
    if {FULL, "single"} <= full.keys():
        measured, met = _above(records, FULL, "single")
        found.append(Target(f"{FULL} F1 above single-step's (interval > 0)", measured, met))
    if {FULL, *BASELINES} <= full.keys():
        checks = [_above(records, FULL, b) for b in BASELINES]
        calls, theirs = full[FULL].llm_calls, full["tutorial-self-rag"].llm_calls
        measured = "; ".join(m for m, _ in checks) + f"; LLM calls {calls:.2f} vs {theirs:.2f}"
        met = all(ok for _, ok in checks) and calls < theirs
        found.append(
            Target(
                f"{FULL} F1 above both tutorial baselines' at fewer LLM calls than Self-RAG's",
                measured,
                met,
            )
        )
    return found


def _adaptive(full: dict[str, Summary]) -> list[Target]:
    found = []
    if {"adaptive", "ircot"} <= full.keys():
        mine, ircot = full["adaptive"], full["ircot"]
        ratio = mine.tokens / ircot.tokens if ircot.tokens else float("inf")
        found.append(
            Target(
                "adaptive F1 >= IRCoT's at <= 50% of its tokens",
                f"F1 {100 * mine.f1:.1f} vs {100 * ircot.f1:.1f}; tokens {ratio:.0%}",
                mine.f1 >= ircot.f1 and ratio <= 0.5,
            )
        )
    if {"adaptive", "single", ORACLE} <= full.keys():
        acc, single, oracle = (full[s].acc for s in ("adaptive", "single", ORACLE))
        gap = oracle - single
        closed = (acc - single) / gap if gap > 0 else None
        found.append(
            Target(
                "adaptive closes >= 30% of the single-to-oracle Acc gap",
                "no gap" if closed is None else f"{closed:.0%} closed",
                None if closed is None else closed >= 0.3,
            )
        )
    return found


def _robust(full: dict[str, Summary], half: dict[str, Summary]) -> list[Target]:
    if not ({"crag", "single"} <= full.keys() and {"crag", "single"} <= half.keys()):
        return []
    kept = {s: half[s].acc / full[s].acc if full[s].acc else None for s in ("crag", "single")}
    if kept["crag"] is None or kept["single"] is None:
        return [Target("CRAG at 50% gold dropped keeps >= 90% of its Acc", "Acc 0", None)]
    return [
        Target(
            "CRAG at 50% gold dropped keeps >= 90% of its Acc, single-step less",
            f"CRAG {kept['crag']:.0%} kept, single {kept['single']:.0%}",
            kept["crag"] >= 0.9 and kept["single"] < kept["crag"],
        )
    ]


def check_targets(records: Sequence[Record]) -> list[Target]:
    """Check every target that the records allow."""
    full, half = _averages(records, 0.0), _averages(records, 0.5)
    return _full_graph(records, full) + _adaptive(full) + _robust(full, half)


def targets_table(records: Sequence[Record]) -> str:
    """Return the targets as a Markdown table ("" when none can be checked)."""
    found = check_targets(records)
    if not found:
        return ""
    verdict = {True: "met", False: "not met", None: "undecided"}
    lines = ["| target | measured | verdict |", "|---|---|---|"]
    lines += [f"| {t.name} | {t.measured} | {verdict[t.met]} |" for t in found]
    return "\n".join(lines)
