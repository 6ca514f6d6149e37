"""Pictures of benchmark results: F1 against cost per question, where the time goes, robustness.

Figures are built without pyplot, so no GUI backend or global figure state is involved: they
render to PNG the same way in a script, a test or a notebook.
"""

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from matplotlib.figure import Figure

from bench.harness.records import Record
from bench.harness.stages import STAGES
from bench.reports.report import AVERAGE, summarize
from bench.reports.stage_report import model_time_runs, stage_rows, timed_records

__all__ = [
    "ROBUSTNESS_STRATEGIES",
    "plot_f1_vs_time",
    "plot_robustness",
    "plot_time_stages",
    "png_bytes",
    "save",
]

ROBUSTNESS_STRATEGIES = ("single", "crag", "self-crag")

SECONDS_LABEL = "seconds per question (at the reference machine speed)"


def plot_f1_vs_time(
    records: Sequence[Record], *, title: str = "", cost: Literal["seconds", "tokens"] = "seconds"
) -> Figure:
    """Draw one point per strategy: average F1 over datasets against its cost per question.

    Args:
        records: The results.
        title: The picture's title.
        cost: `seconds` per question, or LLM `tokens` (prompt plus generated) per question,
            which does not depend on how busy the machine was. Against seconds, only the runs
            that measure model time count (`bench.reports.stage_report.model_time_runs`: no cached
            LLM call, cold-start when the run has any), at the reference machine speed, so a
            strategy with none is left out rather than shown at a warm or cached time. F1 is
            over every question, as in the main table.
    """
    shown = {r.strategy for r in (model_time_runs(records) if cost == "seconds" else records)}
    rows = [r for r in summarize(records) if r.dataset == AVERAGE and r.strategy in shown]
    figure = Figure(figsize=(6, 4))
    axes = figure.subplots()
    for row in rows:
        x = row.seconds if cost == "seconds" else row.tokens
        axes.scatter(x, 100 * row.f1, s=40)
        axes.annotate(
            row.strategy,
            (x, 100 * row.f1),
            textcoords="offset points",
            xytext=(5, 4),
            fontsize=9,
        )
    axes.set_xlabel(SECONDS_LABEL if cost == "seconds" else "LLM tokens per question")
    axes.set_ylabel("F1 (average over datasets)")
    axes.set_title(title or f"F1 against {'time' if cost == 'seconds' else 'tokens'} per question")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    return figure


def plot_time_stages(records: Sequence[Record], *, title: str = "") -> Figure:
    """Draw one horizontal bar per strategy: its mean seconds per question, split by stage.

    Rests on the runs `bench.reports.stage_report.timed_records` keeps (cold-start runs when there
    are any, none with a cached LLM call, at the reference machine speed); says so when there
    are none.
    """
    rows = stage_rows(records)
    figure = Figure(figsize=(7, 0.45 * len(rows) + 2.4))
    axes = figure.subplots()
    left = [0.0] * len(rows)
    for index, stage in enumerate(STAGES if rows else ()):
        widths = [row.stages[stage] for row in rows]
        names = [row.strategy for row in rows]
        axes.barh(names, widths, left=left, label=stage, color=f"C{index}")
        left = [start + width for start, width in zip(left, widths, strict=True)]
    if rows:
        axes.invert_yaxis()  # the first strategy on top
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncols=4, fontsize=8)
    else:
        axes.text(0.5, 0.5, "no runs timed per stage", ha="center", va="center")
    cold = "cold start, " if any(r.cold_start for r in timed_records(records)) else ""
    runs = sum(row.runs for row in rows)
    axes.set_title(title or f"Where the time goes ({cold}{runs} runs)")
    axes.set_xlabel(SECONDS_LABEL)
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    return figure


def plot_robustness(
    records: Sequence[Record],
    *,
    strategies: Sequence[str] = ROBUSTNESS_STRATEGIES,
    metric: Literal["acc", "f1"] = "acc",
) -> Figure:
    """Draw Acc (or F1) against the share of gold passages dropped from the local index."""
    figure = Figure(figsize=(6, 4))
    axes = figure.subplots()
    for strategy in strategies:
        points = sorted({r.drop_gold for r in records if r.strategy == strategy})
        accs = []
        for share in points:
            chosen = [
                getattr(r, metric)
                for r in records
                if r.strategy == strategy and r.drop_gold == share
            ]
            accs.append(100 * sum(chosen) / len(chosen))
        if points:
            axes.plot([100 * p for p in points], accs, marker="o", label=strategy)
    axes.set_xlabel("gold passages dropped from the local index (%)")
    axes.set_ylabel("Acc" if metric == "acc" else "F1")
    axes.set_title("Robustness to missing gold passages")
    axes.grid(alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend()
    figure.tight_layout()
    return figure


def save(figure: Figure, path: Path) -> Path:
    """Write a figure as a PNG file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png_bytes(figure))
    return path


def png_bytes(figure: Figure) -> bytes:
    """Render a figure as PNG bytes (for files and for notebooks' `IPython.display.Image`)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120)
    return buffer.getvalue()
