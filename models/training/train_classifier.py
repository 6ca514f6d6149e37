"""Train Adaptive-RAG's complexity classifier on silver-plus-bias labels (section 3.2).

Labels: the committed runner output `models/artifacts/labels/silver.train.jsonl` gives silver
labels for the questions it covers (see `models.training.silver`, `models.training.labels`);
every other training question, and every one no strategy answered, takes its dataset-bias
label. A MiniLM sequence classifier (top layers, pooler and a 3-way head) is trained with
cross-entropy on the question text alone.
"""

import logging
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from models.training.artifact import build_model, save_artifact
from models.training.data import files_sha256, load_records, split_files
from models.training.labels import ROUTES, read_label_file, route_labels
from models.training.loop import fine_tune

__all__ = ["LABELS_DIR", "ClassifierConfig", "label_counts", "train_classifier"]

logger = logging.getLogger(__name__)

LABELS_DIR = Path(__file__).resolve().parents[1] / "artifacts" / "labels"


@dataclass(frozen=True)
class ClassifierConfig:
    """Hyper-parameters of a classifier training run."""

    steps: int = 150
    batch_size: int = 32
    lr: float = 2e-4
    max_length: int = 64
    top_layers: int = 2
    seed: int = 13
    limit: int | None = None
    time_budget: float | None = 900.0


def label_counts(labels: Sequence[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Count labels per source: `{"silver": {"A": n, ...}, "bias": {...}}`."""
    counts: dict[str, dict[str, int]] = {"silver": {}, "bias": {}}
    for (route, source), n in sorted(Counter(labels).items()):
        counts[source][route] = n
    return counts


def train_classifier(
    data_dir: Path, out_dir: Path, config: ClassifierConfig, *, labels_dir: Path = LABELS_DIR
) -> dict[str, Any]:
    """Train on `qa/*.train.jsonl` with silver-plus-bias labels, save, and return the manifest."""
    files = split_files(data_dir, "train")
    records = load_records(files)
    random.Random(config.seed).shuffle(records)
    records = records[: config.limit] if config.limit else records
    silver_file = labels_dir / "silver.train.jsonl"
    labels = route_labels(records, read_label_file(silver_file))
    counts = label_counts(labels)
    logger.info("classifier labels: %s", counts)
    model, tokenizer = build_model(len(ROUTES), top_layers=config.top_layers)
    fit = fine_tune(
        model,
        tokenizer,
        [r["question"] for r in records],
        None,
        [ROUTES.index(route) for route, _ in labels],
        steps=config.steps,
        batch_size=config.batch_size,
        lr=config.lr,
        max_length=config.max_length,
        seed=config.seed,
        time_budget=config.time_budget,
    )
    manifest: dict[str, Any] = {
        "kind": "classifier",
        "classes": list(ROUTES),
        "max_length": config.max_length,
        "training_data": {
            "files": [f.name for f in files],
            "sha256": files_sha256(files),
            "silver_labels": silver_file.name,
            "silver_sha256": files_sha256([silver_file]) if silver_file.is_file() else None,
            "questions": len(records),
            "label_counts": counts,
        },
        "seed": config.seed,
        "hyperparameters": asdict(config),
        "training": asdict(fit),
    }
    save_artifact(out_dir, model, top_layers=config.top_layers, manifest=manifest)
    return manifest
