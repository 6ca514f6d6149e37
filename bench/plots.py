"""Pictures of benchmark results: F1 against seconds per question, and CRAG's robustness."""

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
from matplotlib.figure import Figure  # noqa: E402

from bench.records import Record  # noqa: E402
from bench.report import AVERAGE, summarize  # noqa: E402

__all__ = ["ROBUSTNESS_STRATEGIES", "plot_f1_vs_time", "plot_robustness", "save"]

ROBUSTNESS_STRATEGIES = ("single", "crag", "self-crag")


def plot_f1_vs_time(records: Sequence[Record], *, title: str = "") -> Figure:
    """Draw one point per strategy: average F1 over datasets against seconds per question."""
    rows = [r for r in summarize(records) if r.dataset == AVERAGE]
    figure, axes = plt.subplots(figsize=(6, 4))
    for row in rows:
        axes.scatter(row.seconds, 100 * row.f1, s=40)
        axes.annotate(
            row.strategy,
            (row.seconds, 100 * row.f1),
            textcoords="offset points",
            xytext=(5, 4),
            fontsize=9,
        )
    axes.set_xlabel("seconds per question")
    axes.set_ylabel("F1 (average over datasets)")
    axes.set_title(title or "F1 against time per question")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    return figure


def plot_robustness(
    records: Sequence[Record], *, strategies: Sequence[str] = ROBUSTNESS_STRATEGIES
) -> Figure:
    """Draw Acc against the share of gold passages dropped from the local index."""
    figure, axes = plt.subplots(figsize=(6, 4))
    for strategy in strategies:
        points = sorted({r.drop_gold for r in records if r.strategy == strategy})
        accs = []
        for share in points:
            chosen = [r.acc for r in records if r.strategy == strategy and r.drop_gold == share]
            accs.append(100 * sum(chosen) / len(chosen))
        if points:
            axes.plot([100 * p for p in points], accs, marker="o", label=strategy)
    axes.set_xlabel("gold passages dropped from the local index (%)")
    axes.set_ylabel("Acc")
    axes.set_title("Robustness to missing gold passages")
    axes.grid(alpha=0.3)
    if axes.get_legend_handles_labels()[0]:
        axes.legend()
    figure.tight_layout()
    return figure


def save(figure: Figure, path: Path) -> Path:
    """Write a figure as PNG and release it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
