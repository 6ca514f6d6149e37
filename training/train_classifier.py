"""Train Adaptive-RAG's complexity classifier on silver-plus-bias labels (section 3.2).

Labels: a silver-label file (by default the committed `models/artifacts/labels/silver.train.jsonl`;
see `training.silver`, `training.labels`), from one reader, gives silver labels
for the questions it covers; every other training question, and every one no strategy
answered, takes its dataset-bias label. The train split of the hand-written route-A set
(`training.route_a`: inputs that need no documents, and chatty hard negatives) is added,
repeated so route A weighs as a class. A head over frozen MiniLM question embeddings (or
MiniLM's top layers) is trained with cross-entropy on the question text alone.
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

from models.artifact import (
    WEIGHTS,
    build_model,
    read_manifest,
    save_artifact,
    write_manifest,
)
from models.classifier import ARTIFACT_DIR
from models.heads import embed_texts, save_head
from models.judges import Route
from training.data import files_sha256, load_records, split_files
from training.embed_head import fit_route_head
from training.labels import ROUTES, read_label_file, readers_in, route_labels
from training.loop import fine_tune
from training.route_a import ROUTE_A_FILE, balanced_repeat, read_route_a

__all__ = [
    "LABELS_DIR",
    "ClassifierConfig",
    "TrainingSet",
    "label_counts",
    "train_classifier",
    "training_set",
]

logger = logging.getLogger(__name__)

LABELS_DIR = ARTIFACT_DIR.parent / "labels"


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
    route_a_repeat: int | None = None
    """Copies of the route-A train split: None for `balanced_repeat`, 0 to leave it out."""
    silver_repeat: int = 1
    """Copies of each silver-labelled question, to weigh outcomes above dataset-bias labels."""
    multi_hop_bias: Route = "C"
    """The label of multi-hop questions no route answered (`labels.bias_label`)."""
    drop_guessed_a: bool = False
    """Set aside right closed-book answers to questions that write the answer out."""


def label_counts(labels: Sequence[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Count labels per source: `{"silver": {"A": n, ...}, "bias": {...}, "route_a": {...}}`."""
    counts: dict[str, dict[str, int]] = {"silver": {}, "bias": {}}
    for (route, source), n in sorted(Counter(labels).items()):
        counts.setdefault(source, {})[route] = n
    return counts


@dataclass(frozen=True)
class TrainingSet:
    """The texts a classifier trains on, their labels and how the route-A set entered."""

    texts: list[str]
    labels: list[tuple[str, str]]
    """(route, source) per text; source is silver, bias or route_a."""
    route_a: dict[str, Any]


def training_set(
    records: Sequence[dict[str, Any]],
    silver: dict[str, dict[str, Any]],
    *,
    route_a_file: Path | None,
    repeat: int | None,
    silver_repeat: int = 1,
    multi_hop_bias: Route = "C",
    drop_guessed_a: bool = False,
) -> TrainingSet:
    """Label the dataset questions and add the route-A train split `repeat` times.

    Args:
        records: Training questions in the shared schema.
        silver: Silver-label rows keyed by question id.
        route_a_file: The hand-written route-A JSONL; None (or `repeat` 0) leaves it out.
        repeat: Copies of the route-A train split; None chooses `balanced_repeat`.
        silver_repeat: Copies of each silver-labelled question (1: once, like the others).
        multi_hop_bias: The label of multi-hop questions no route answered.
        drop_guessed_a: Set aside right closed-book answers to questions that write the
            answer out (`labels.answer_in_question`).
    """
    labels: list[tuple[str, str]] = list(
        route_labels(records, silver, multi_hop_bias=multi_hop_bias, drop_guessed_a=drop_guessed_a)
    )
    texts = [r["question"] for r in records]
    extra = [i for i, (_, source) in enumerate(labels) if source == "silver"] * (silver_repeat - 1)
    texts += [texts[i] for i in extra]
    labels += [labels[i] for i in extra]
    if route_a_file is None or repeat == 0:
        return TrainingSet(texts, labels, {"file": None, "repeat": 0})
    chat = read_route_a(route_a_file, split="train")
    copies = balanced_repeat([route for route, _ in labels], chat) if repeat is None else repeat
    texts += [e.text for e in chat] * copies
    labels += [(e.route, "route_a") for e in chat] * copies
    route_a = {
        "file": route_a_file.name,
        "sha256": files_sha256([route_a_file]),
        "examples": dict(sorted(Counter(e.route for e in chat).items())),
        "repeat": copies,
    }
    return TrainingSet(texts, labels, route_a)


def train_classifier(
    data_dir: Path,
    out_dir: Path,
    config: ClassifierConfig,
    *,
    labels_file: Path = LABELS_DIR / "silver.train.jsonl",
    reader: str | None = None,
    route_a_file: Path | None = ROUTE_A_FILE,
) -> dict[str, Any]:
    """Train on `qa/*.train.jsonl` with silver-plus-bias labels, save, and return the manifest.

    Args:
        data_dir: Folder holding `qa/*.train.jsonl`.
        out_dir: Artifact folder to write.
        config: Hyper-parameters.
        labels_file: Silver-label JSONL (`training.silver`); missing means bias only.
        reader: Use only the labels this reader made (required when the file mixes readers).
        route_a_file: Hand-written route-A JSONL whose train split is added; None for none.
    """
    files = split_files(data_dir, "train")
    records = load_records(files)
    random.Random(config.seed).shuffle(records)
    records = records[: config.limit] if config.limit else records
    silver = read_label_file(labels_file, reader=reader)
    data = training_set(
        records,
        silver,
        route_a_file=route_a_file,
        repeat=config.route_a_repeat,
        silver_repeat=config.silver_repeat,
        multi_hop_bias=config.multi_hop_bias,
        drop_guessed_a=config.drop_guessed_a,
    )
    counts = label_counts(data.labels)
    logger.info("classifier labels: %s", counts)
    targets = [ROUTES.index(route) for route, _ in data.labels]
    if config.architecture == "embedding-head":
        training = _train_head(data.texts, targets, out_dir, config)
    else:
        training = _train_fine_tuned(data.texts, targets, out_dir, config)
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
            "route_a": data.route_a,
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
