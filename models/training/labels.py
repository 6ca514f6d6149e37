"""Adaptive-RAG's route labels (section 3.2): silver where a strategy succeeds, else bias.

A question's silver label is the simplest strategy that answers it correctly, in the order
A (no retrieval) < B (single-step retrieval) < C (multi-step, IRCoT); ties go to the simpler.
Questions no strategy answers, and questions no strategy was run on, take the dataset-bias
label: B for single-hop datasets, C for multi-hop ones.
"""

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from models.judges import Route

__all__ = [
    "ROUTES",
    "LabelSource",
    "bias_label",
    "read_label_file",
    "route_labels",
    "silver_label",
]

ROUTES: tuple[Route, Route, Route] = ("A", "B", "C")
"""Routes from simplest to most expensive."""

LabelSource = Literal["silver", "bias"]


def silver_label(correct: Mapping[Route, bool]) -> Route | None:
    """Return the simplest route marked correct, or None when none is."""
    for route in ROUTES:
        if correct.get(route, False):
            return route
    return None


def bias_label(hop: str) -> Route:
    """Return the dataset-bias label: B for single-hop questions, C for multi-hop ones."""
    if hop not in ("single", "multi"):
        raise ValueError(f"hop must be 'single' or 'multi', not {hop!r}")
    return "B" if hop == "single" else "C"


def read_label_file(path: Path) -> dict[str, dict[str, Any]]:
    """Read a silver-label JSONL file (one runner record per line) keyed by question id."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return {row["id"]: row for row in rows}


def route_labels(
    records: Iterable[Mapping[str, Any]], silver: Mapping[str, Mapping[str, Any]]
) -> list[tuple[Route, LabelSource]]:
    """Label each record: silver from the runner's `correct` map if it answers, else bias.

    Args:
        records: Questions in the shared schema (`id`, `hop` are used).
        silver: Runner rows keyed by question id; each has `correct: {route: bool}`.
    """
    labels: list[tuple[Route, LabelSource]] = []
    for record in records:
        row = silver.get(record["id"])
        label = silver_label(row["correct"]) if row else None
        if label is None:
            labels.append((bias_label(record["hop"]), "bias"))
        else:
            labels.append((label, "silver"))
    return labels
