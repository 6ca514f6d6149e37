"""Where each strategy's time goes: mean seconds per stage over the runs that measure it.

Only runs whose seconds are the model's and the graph's own count: timed per stage (older
records are not), no LLM call answered from the response cache, no error, nothing dropped
from the index. When some of them started every LLM call cold, only those count, so a
strategy's time never depends on what ran before it (`bench.harness.evaluate`).

Seconds are reported at one reference machine speed (`at_reference_speed`). The benchmark's
machine is shared: over one run of record its llama.cpp prompt speed fell from 75 to 23
tokens a second, between sessions and within one. Measured as they are, seconds
would rank strategies by when they ran. So a run's prompt evaluation counts as its prompt
tokens at `PROMPT_RATE`, its decoding as its generated tokens at `DECODE_RATE`, and its
other stages (retrieval, evaluator, strips, ...) are scaled by how much slower than
`PROMPT_RATE` its own prompt evaluation ran.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import fmean

from bench.harness.records import Record
from bench.harness.stages import STAGES
from bench.harness.strategies import ordered_strategies

__all__ = [
    "DECODE_RATE",
    "PROMPT_RATE",
    "StageRow",
    "at_reference_speed",
    "cold_if_any",
    "model_time_runs",
    "stage_rows",
    "stage_table",
    "timed_records",
]

PROMPT_RATE = 75.0
"""Prompt tokens a second of the reference machine: the median over the 565 timed ladder runs
of `docs/bench/full-dev` (default reader, two idle cores, every call cold)."""

DECODE_RATE = 22.0
"""Generated tokens a second of the reference machine, over the same runs."""


@dataclass(frozen=True)
class StageRow:
    """Mean seconds per question of one strategy in each stage (`bench.harness.stages.STAGES`)."""

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


def at_reference_speed(record: Record) -> Record:
    """Return the run with its stages and seconds at the reference machine speed.

    A run with no prompt evaluation to measure the machine by (no LLM call, cached, untimed)
    is returned as it is.
    """
    rate = _prompt_rate(record)
    if rate is None:
        return record
    speed = rate / PROMPT_RATE  # the machine's, while this run ran, against the reference
    stages = {stage: seconds * speed for stage, seconds in record.stages.items()}
    stages["prompt"] = record.prompt_tokens / PROMPT_RATE
    if _decode_rate(record) is not None:
        stages["decode"] = record.generated_tokens / DECODE_RATE
    return replace(record, stages=stages, seconds=sum(stages.values()))


def model_time_runs(records: Sequence[Record]) -> list[Record]:
    """Return the runs whose seconds are model time, at the reference machine speed.

    Those are the runs with no cached LLM call, cold when any are, each `at_reference_speed`.
    Falls back to every run when none qualifies (a fully cached replay, an older warm run).
    """
    chosen = cold_if_any([r for r in records if r.cache_hits == 0] or records)
    return [at_reference_speed(r) for r in chosen]


def timed_records(records: Sequence[Record]) -> list[Record]:
    """Return the runs whose stages measure model and graph time, at the reference speed.

    See the module's note for which runs those are.
    """
    timed = [
        r for r in records if r.stages and r.cache_hits == 0 and r.error is None and not r.drop_gold
    ]
    return [at_reference_speed(r) for r in cold_if_any(timed)]


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
        f"Mean over {len(timed)} runs ({kind}; no cached LLM call, no error, no gold dropped), "
        f"at the reference machine speed ({PROMPT_RATE:.0f} prompt and {DECODE_RATE:.0f} "
        "generated tokens a second; `bench.reports.stage_report`). "
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
