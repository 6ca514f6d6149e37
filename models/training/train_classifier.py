"""Train Adaptive-RAG's complexity classifier on silver-plus-bias labels (section 3.2).

Labels: a silver-label file (by default the committed `models/artifacts/labels/silver.train.jsonl`;
see `models.training.silver`, `models.training.labels`), from one reader, gives silver labels
for the questions it covers; every other training question, and every one no strategy
answered, takes its dataset-bias label. A MiniLM sequence classifier (top layers, pooler and
a 3-way head) is trained with cross-entropy on the question text alone.
"""

import logging
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import torch

from models.training.artifact import (
    WEIGHTS,
    build_model,
    read_manifest,
    save_artifact,
    write_manifest,
)
from models.training.data import files_sha256, load_records, split_files
from models.training.embed_head import embed_texts, fit_route_head, save_head
from models.training.labels import ROUTES, read_label_file, readers_in, route_labels
from models.training.loop import fine_tune

__all__ = ["LABELS_DIR", "ClassifierConfig", "label_counts", "train_classifier"]

logger = logging.getLogger(__name__)

LABELS_DIR = Path(__file__).resolve().parents[1] / "artifacts" / "labels"


@dataclass(frozen=True)
class ClassifierConfig:
    """Hyper-parameters of a classifier training run."""

    architecture: Literal["embedding-head", "fine-tuned"] = "embedding-head"
    """A head over the frozen MiniLM question embedding, or MiniLM's top layers fine-tuned."""
    head_epochs: int = 40

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
    data_dir: Path,
    out_dir: Path,
    config: ClassifierConfig,
    *,
    labels_file: Path = LABELS_DIR / "silver.train.jsonl",
    reader: str | None = None,
) -> dict[str, Any]:
    """Train on `qa/*.train.jsonl` with silver-plus-bias labels, save, and return the manifest.

    Args:
        data_dir: Folder holding `qa/*.train.jsonl`.
        out_dir: Artifact folder to write.
        config: Hyper-parameters.
        labels_file: Silver-label JSONL (`models.training.silver`); missing means bias only.
        reader: Use only the labels this reader made (required when the file mixes readers).
    """
    files = split_files(data_dir, "train")
    records = load_records(files)
    random.Random(config.seed).shuffle(records)
    records = records[: config.limit] if config.limit else records
    silver = read_label_file(labels_file, reader=reader)
    labels = route_labels(records, silver)
    counts = label_counts(labels)
    logger.info("classifier labels: %s", counts)
    targets = [ROUTES.index(route) for route, _ in labels]
    questions = [r["question"] for r in records]
    if config.architecture == "embedding-head":
        training = _train_head(questions, targets, out_dir, config)
    else:
        training = _train_fine_tuned(questions, targets, out_dir, config)
    manifest: dict[str, Any] = {
        "kind": "classifier",
        "classes": list(ROUTES),
        "max_length": config.max_length,
        "training_data": {
            "files": [f.name for f in files],
            "sha256": files_sha256(files),
            "silver_labels": labels_file.name,
            "silver_sha256": files_sha256([labels_file]) if labels_file.is_file() else None,
            "silver_readers": sorted(str(r) for r in readers_in(silver.values())),
            "questions": len(records),
            "label_counts": counts,
        },
        "seed": config.seed,
        "hyperparameters": asdict(config),
        **training,
    }
    write_manifest(out_dir, manifest)
    return read_manifest(out_dir, kind="classifier")


def _train_head(
    questions: list[str], targets: list[int], out_dir: Path, config: ClassifierConfig
) -> dict[str, Any]:
    start = time.perf_counter()
    vectors = embed_texts(questions)
    head, loss = fit_route_head(
        torch.stack([vectors[q] for q in questions]),
        torch.tensor(targets),
        epochs=config.head_epochs,
        seed=config.seed,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    save_head(head, out_dir / WEIGHTS)
    seconds = time.perf_counter() - start
    training = {"seconds": seconds, "epochs": config.head_epochs, "final_loss": loss}
    return {"architecture": "embedding-head", "training": training}


def _train_fine_tuned(
    questions: list[str], targets: list[int], out_dir: Path, config: ClassifierConfig
) -> dict[str, Any]:
    model, tokenizer = build_model(len(ROUTES), top_layers=config.top_layers)
    fit = fine_tune(
        model,
        tokenizer,
        questions,
        None,
        targets,
        steps=config.steps,
        batch_size=config.batch_size,
        lr=config.lr,
        max_length=config.max_length,
        seed=config.seed,
        time_budget=config.time_budget,
    )
    save_artifact(out_dir, model, top_layers=config.top_layers, manifest={})
    extra = {"top_layers": config.top_layers, "num_labels": len(ROUTES)}
    return {"architecture": "fine-tuned-top", "training": asdict(fit), **extra}
