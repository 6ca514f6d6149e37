"""Summaries of benchmark records and their Markdown tables.

The main table has Adaptive-RAG's Table 1 shape: one row per strategy, EM / F1 / Acc, steps
(retrieval calls per question, web searches included), seconds per question (of the runs
that measure model time, `bench.reports.stage_report.model_time_runs`, as the plots, at the
reference
machine speed) and time relative to single-step, per dataset and on average over datasets
(each dataset weighs the same).
EM / F1 / Acc are over answerable questions only; unanswerable ones (no gold answers) are
scored by abstention in their own table. Each strategy's difference from single-step on the
same questions, with its paired interval, is in `bench.reports.versus`; where the time goes, stage
by
stage, in `bench.reports.stage_report`. Both tables are part of the report.
"""

from collections import Counter
from collections.abc import Sequence

from bench.harness.metrics import abstention_rates, is_answerable, question_correct
from bench.harness.records import Record
from bench.harness.strategies import ORACLE, ordered_strategies
from bench.reports.stage_report import stage_table
from bench.reports.summary import AVERAGE, Summary, abstained, mean, summarize
from bench.reports.targets import targets_table
from bench.reports.versus import versus_table

__all__ = [
    "AVERAGE",
    "Summary",
    "abstained",
    "abstention_table",
    "crag_mix",
    "markdown_report",
    "robustness_table",
    "route_mix",
    "stage_table",
    "summarize",
    "summary_table",
]

_TABLE_HEAD = (
    "| strategy | n | EM | F1 | Acc | steps | LLM calls | tokens | s/question | time vs single |"
)


def summary_table(rows: Sequence[Summary], dataset: str) -> str:
    """Return the Markdown table of one dataset (or of `AVERAGE`)."""
    mine = [r for r in rows if r.dataset == dataset]
    single = next((r.seconds for r in mine if r.strategy == "single"), 0.0)
    lines = [_TABLE_HEAD, "|---|" + "---:|" * 9]
    for r in mine:
        relative = f"{r.seconds / single:.2f}x" if single > 0 else "-"
        errors = f" ({r.errors} errors)" if r.errors else ""
        lines.append(
            f"| {r.strategy}{errors} | {r.n} | {100 * r.em:.1f} | {100 * r.f1:.1f} | "
            f"{100 * r.acc:.1f} | {r.steps:.2f} | {r.llm_calls:.2f} | {r.tokens:.0f} | "
            f"{r.seconds:.2f} | {relative} |"
        )
    return "\n".join(lines)


def _mix_table(records: Sequence[Record], attribute: str, labels: Sequence[str]) -> str:
    groups: dict[tuple[str, str], Counter[str]] = {}
    for r in records:
        value = getattr(r, attribute)
        if value is not None:
            name = f"{r.strategy} (drop {r.drop_gold:.0%})" if r.drop_gold else r.strategy
            groups.setdefault((r.dataset, name), Counter())[str(value)] += 1
    if not groups:
        return ""
    lines = [f"| dataset | strategy | {' | '.join(labels)} |", "|---|---|" + "---:|" * len(labels)]
    for (dataset, strategy), counts in sorted(groups.items()):
        total = sum(counts.values())
        shares = " | ".join(f"{100 * counts[label] / total:.0f}%" for label in labels)
        lines.append(f"| {dataset} | {strategy} | {shares} |")
    return "\n".join(lines)


def route_mix(records: Sequence[Record]) -> str:
    """Return the share of routes A / B / C per dataset for strategies that choose routes."""
    routed = [
        r
        for r in records
        if r.strategy in ("adaptive", "acrag", "adaptive-oracle") and r.drop_gold == 0
    ]
    return _mix_table(routed, "route", ("A", "B", "C"))


def crag_mix(records: Sequence[Record]) -> str:
    """Return the share of CRAG actions per dataset for the strategies that correct."""
    corrected = [r for r in records if r.strategy in ("crag", "self-crag", "acrag")]
    return _mix_table(corrected, "crag_action", ("Correct", "Ambiguous", "Incorrect"))


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.1f}"


def abstention_table(records: Sequence[Record]) -> str:
    """Return abstention per dataset and strategy, when a run has unanswerable questions.

    Columns: abstention rate on unanswerable questions, false-abstention rate on answerable
    ones, and Acc over all questions with an unanswerable one right when abstained.
    """
    if all(is_answerable(r.answers) for r in records):
        return ""
    groups: dict[tuple[str, str], list[Record]] = {}
    for r in records:
        name = f"{r.strategy} (drop {r.drop_gold:.0%})" if r.drop_gold else r.strategy
        groups.setdefault((r.dataset, name), []).append(r)
    lines = [
        "| dataset | strategy | unanswerable | abstained (%) | answerable | "
        "false abstention (%) | Acc, all questions |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for (dataset, strategy), chosen in sorted(groups.items()):
        rates = abstention_rates((r.answers, abstained(r)) for r in chosen)
        right = [question_correct(r.answers, acc=r.acc, abstained=abstained(r)) for r in chosen]
        lines.append(
            f"| {dataset} | {strategy} | {rates.unanswerable} | {_percent(rates.abstention)} | "
            f"{rates.answerable} | {_percent(rates.false_abstention)} | "
            f"{100 * mean(right):.1f} |"
        )
    return "\n".join(lines)


def robustness_table(records: Sequence[Record]) -> str:
    """Return Acc (and F1) per strategy against the share of gold dropped (all datasets)."""
    shares = sorted({r.drop_gold for r in records})
    if len(shares) < 2:
        return ""
    lines = [
        "| strategy | " + " | ".join(f"drop {s:.0%}" for s in shares) + " |",
        "|---|" + "---:|" * len(shares),
    ]
    for strategy in ordered_strategies(r.strategy for r in records):
        cells = []
        for share in shares:
            chosen = [
                r
                for r in records
                if r.strategy == strategy and r.drop_gold == share and is_answerable(r.answers)
            ]
            acc, f1 = mean([r.acc for r in chosen]), mean([r.f1 for r in chosen])
            cells.append(f"{100 * acc:.1f} (F1 {100 * f1:.1f}, n={len(chosen)})" if chosen else "-")
        lines.append(f"| {strategy} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_report(records: Sequence[Record], *, title: str = "Benchmark results") -> str:
    """Return the whole Markdown report: tables per dataset, average, time, mixes, robustness."""
    rows = summarize(records)
    parts = [f"# {title}", ""]
    for dataset in [*sorted({r.dataset for r in rows} - {AVERAGE}), AVERAGE]:
        if any(r.dataset == dataset for r in rows):
            parts += [f"## {dataset}", "", summary_table(rows, dataset), ""]
    hits = sum(r.cache_hits for r in records)
    calls = sum(r.llm_calls for r in records)
    parts += [
        f"LLM calls answered from the response cache: {hits} of {calls} "
        "(their seconds are not model time).",
        "",
    ]
    runs = [r for r in records if r.strategy != ORACLE]
    parts += [
        f"Cold-start runs (no LLM call reused the previous prompt's KV cache): "
        f"{sum(r.cold_start for r in runs)} of {len(runs)}.",
        "",
    ]
    for heading, table in (
        ("F1 against single-step (paired bootstrap 95%; * beyond noise)", versus_table(records)),
        (
            "Acc against single-step (paired bootstrap 95%; * beyond noise)",
            versus_table(records, metric="acc"),
        ),
        ("Where the time goes (seconds per question, reference speed)", stage_table(records)),
        ("Route mix", route_mix(records)),
        ("CRAG actions", crag_mix(records)),
        ("Abstention (unanswerable questions)", abstention_table(records)),
        ("Robustness: Acc vs share of gold dropped", robustness_table(records)),
        ("Targets (from the issue; reported, not asserted)", targets_table(records)),
    ):
        if table:
            parts += [f"## {heading}", "", table, ""]
    return "\n".join(parts)
