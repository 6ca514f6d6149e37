"""Where each strategy's time goes: mean seconds per stage over the runs that measure it.

Only runs whose seconds are the model's and the graph's own count: timed per stage (older
records are not), no LLM call answered from the response cache, no error, nothing dropped
from the index. When some of them started every LLM call cold, only those count, so a
strategy's time never depends on what ran before it (`bench.harness`). A run whose llama.cpp
throughput (prompt or decoding tokens a second) is under a third of the median among the runs
compared was interrupted: the machine was paused or loaded while it ran, so its seconds are not
the strategy's and it does not count either (`steady`).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean, median

from bench.records import Record
from bench.stages import STAGES
from bench.strategies import ordered_strategies

__all__ = [
    "StageRow",
    "cold_if_any",
    "model_time_runs",
    "stage_rows",
    "stage_table",
    "steady",
    "timed_records",
]

SLOWDOWN = 3.0
"""A run this many times slower than the median throughput was interrupted (`steady`)."""


@dataclass(frozen=True)
class StageRow:
    """Mean seconds per question of one strategy in each stage (`bench.stages.STAGES`)."""

    strategy: str
    runs: int
    stages: dict[str, float]

    @property
    def seconds(self) -> float:
        """Return the mean seconds per question, all stages together."""
        return sum(self.stages.values())


def cold_if_any(records: Sequence[Record]) -> list[Record]:
    """Return the cold-start records if there are any, else all of them (older runs were warm)."""
    cold = [r for r in records if r.cold_start]
    return cold or list(records)


def _rate(tokens: int, seconds: float) -> float | None:
    return tokens / seconds if tokens and seconds > 0 else None


def _prompt_rate(record: Record) -> float | None:
    return _rate(record.prompt_tokens, record.stages.get("prompt", 0.0))


def _decode_rate(record: Record) -> float | None:
    return _rate(record.generated_tokens, record.stages.get("decode", 0.0))


def steady(records: Sequence[Record]) -> list[Record]:
    """Drop the runs whose prompt or decoding throughput is under 1/`SLOWDOWN` of the median.

    llama.cpp's speed is the machine's, not the strategy's, so a run far slower than the
    others was interrupted (a paused or loaded machine) and its seconds would mislead. Runs
    with no model time to judge (no LLM call, untimed, cached) are kept.
    """
    floors: list[tuple[Callable[[Record], float | None], float]] = []
    for rate in (_prompt_rate, _decode_rate):
        rates = [r for r in map(rate, records) if r is not None]
        if rates:
            floors.append((rate, median(rates) / SLOWDOWN))
    return [
        r for r in records if all((x := rate(r)) is None or x >= floor for rate, floor in floors)
    ]


def model_time_runs(records: Sequence[Record]) -> list[Record]:
    """Return the runs whose seconds are model time: no cached LLM call, cold when any are.

    Falls back to every run when none qualifies (a fully cached replay, an older warm run);
    interrupted runs (`steady`) never count, unless every run was.
    """
    chosen = cold_if_any([r for r in records if r.cache_hits == 0] or records)
    return steady(chosen) or chosen


def timed_records(records: Sequence[Record]) -> list[Record]:
    """Return the runs whose stages measure model and graph time (see the module's note)."""
    timed = [
        r for r in records if r.stages and r.cache_hits == 0 and r.error is None and not r.drop_gold
    ]
    return steady(cold_if_any(timed))


def stage_rows(records: Sequence[Record]) -> list[StageRow]:
    """Return each strategy's mean seconds per stage over its `timed_records`."""
    groups: dict[str, list[Record]] = {}
    for record in timed_records(records):
        groups.setdefault(record.strategy, []).append(record)
    return [
        StageRow(
            strategy,
            len(groups[strategy]),
            {stage: fmean(r.stages.get(stage, 0.0) for r in groups[strategy]) for stage in STAGES},
        )
        for strategy in ordered_strategies(groups)
    ]


def stage_table(records: Sequence[Record]) -> str:
    """Return the Markdown table of where each strategy's time goes, and what it rests on."""
    rows = stage_rows(records)
    if not rows:
        return ""
    timed = timed_records(records)
    kind = "every LLM call started cold" if timed[0].cold_start else "warm prompt cache"
    lines = [
        f"Mean over {len(timed)} runs ({kind}; no cached LLM call, no error, no gold dropped). "
        "`prompt` and `decode` are llama.cpp's prompt evaluation and decoding, in every node; "
        "the other stages are their nodes' own time outside the LLM; `other` is the rest "
        "(answer writing and rewriting outside the model, graph overhead).",
        "",
        f"| strategy | runs | {' | '.join(STAGES)} | total |",
        "|---|" + "---:|" * (len(STAGES) + 2),
    ]
    for row in rows:
        cells = " | ".join(f"{row.stages[stage]:.2f}" for stage in STAGES)
        lines.append(f"| {row.strategy} | {row.runs} | {cells} | {row.seconds:.2f} |")
    return "\n".join(lines)
