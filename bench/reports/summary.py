"""Mean scores and costs per (dataset, strategy), and their average over datasets.

The rows the report's tables (`bench.reports.report`), its targets (`bench.reports.targets`) and its
paired
comparisons (`bench.reports.versus`) are built on; each dataset weighs the same in the average.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from bench.harness.metrics import is_answerable
from bench.harness.records import Record
from bench.harness.strategies import ordered_strategies
from bench.reports.stage_report import model_time_runs

__all__ = ["AVERAGE", "Summary", "abstained", "mean", "summarize"]

AVERAGE = "average"


@dataclass(frozen=True)
class Summary:
    """Mean scores and costs of one strategy on one dataset (or on average)."""

    dataset: str
    strategy: str
    n: int
    em: float
    f1: float
    acc: float
    steps: float
    llm_calls: float
    tokens: float
    seconds: float
    errors: int


def mean(values: Sequence[float]) -> float:
    """Return the mean of `values` (0 when there are none)."""
    return sum(values) / len(values) if values else 0.0


def abstained(record: Record) -> bool:
    """Tell whether the graph abstained on this record's question (False when unknown)."""
    return bool(getattr(record, "abstained", False))


def _summary(dataset: str, strategy: str, records: Sequence[Record]) -> Summary:
    scored = [r for r in records if is_answerable(r.answers)]
    return Summary(
        dataset,
        strategy,
        len(records),
        em=mean([r.em for r in scored]),
        f1=mean([r.f1 for r in scored]),
        acc=mean([r.acc for r in scored]),
        steps=mean([r.retrieval_calls for r in records]),
        llm_calls=mean([r.llm_calls for r in records]),
        tokens=mean([r.prompt_tokens + r.generated_tokens for r in records]),
        seconds=mean([r.seconds for r in model_time_runs(records)]),
        errors=sum(r.error is not None for r in records),
    )


def _averaged(strategy: str, rows: Sequence[Summary]) -> Summary:
    return Summary(
        AVERAGE,
        strategy,
        sum(r.n for r in rows),
        em=mean([r.em for r in rows]),
        f1=mean([r.f1 for r in rows]),
        acc=mean([r.acc for r in rows]),
        steps=mean([r.steps for r in rows]),
        llm_calls=mean([r.llm_calls for r in rows]),
        tokens=mean([r.tokens for r in rows]),
        seconds=mean([r.seconds for r in rows]),
        errors=sum(r.errors for r in rows),
    )


def summarize(records: Sequence[Record], *, drop_gold: float = 0.0) -> list[Summary]:
    """Return a summary per (dataset, strategy) at one drop share, then the averages."""
    chosen = [r for r in records if abs(r.drop_gold - drop_gold) < 1e-9]
    groups: dict[tuple[str, str], list[Record]] = {}
    for record in chosen:
        groups.setdefault((record.dataset, record.strategy), []).append(record)
    rows = [
        _summary(d, s, groups[(d, s)])
        for d in sorted({d for d, _ in groups})
        for s in ordered_strategies(s for _, s in groups)
        if (d, s) in groups
    ]
    datasets = {r.dataset for r in rows}
    averages = [
        _averaged(s, [r for r in rows if r.strategy == s])
        for s in ordered_strategies(r.strategy for r in rows)
        if sum(r.strategy == s for r in rows) == len(datasets)
    ]
    return rows + averages
