"""Train CRAG's retrieval evaluator: a MiniLM cross-encoder scoring (question, passage) pairs.

Training pairs come only from `qa/*.train.jsonl` (see `models.training.data.build_pairs`):
relevant passages, same-question non-relevant passages (hard negatives), other questions'
passages (easy negatives), and strip-level pairs. One logit is trained with binary
cross-entropy; the evaluator reports `2 * sigmoid(logit) - 1` in [-1, 1]. Thresholds are then
chosen on `qa/*.dev.jsonl` (`models.training.calibrate`) and written into the manifest.
"""

import json
import logging
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import torch

from models.training.artifact import (
    MANIFEST,
    WEIGHTS,
    build_model,
    read_manifest,
    resume_from,
    save_artifact,
    write_manifest,
)
from models.training.data import Pair, build_pairs, files_sha256, load_records, split_files
from models.training.embed_head import embed_texts, fit_head, save_head
from models.training.loop import fine_tune

__all__ = ["EvaluatorConfig", "train_evaluator"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvaluatorConfig:
    """Hyper-parameters of an evaluator training run."""

    architecture: Literal["embedding-head", "cross-encoder"] = "cross-encoder"
    """MiniLM fine-tuned on the concatenated pair, or a head over frozen MiniLM embeddings."""
    head_epochs: int = 20

    steps: int = 1600
    batch_size: int = 16
    lr: float = 5e-4
    max_length: int = 160
    time_budget: float | None = None
    """Stop (with the learning rate fully decayed) after this many seconds."""
    top_layers: int = 0
    """Cross-encoder: how many of MiniLM's top layers are trained outright."""
    lora_rank: int = 16
    """Cross-encoder: rank of low-rank adapters on every encoder layer (0 for none)."""
    lora_alpha: float = 32.0
    seed: int = 13
    limit: int | None = None
    """Use only the first `limit` training questions (after a seeded shuffle)."""
    resume: Path | None = None
    """Start from the trained tensors of this artifact (continue training; use a new seed)."""


def train_evaluator(
    data_dir: Path, out_dir: Path, config: EvaluatorConfig, *, calibrate: bool = True
) -> dict[str, Any]:
    """Train, save, then (optionally) calibrate thresholds and measure on dev; return the manifest.

    Args:
        data_dir: Folder holding `qa/*.train.jsonl` (and `qa/*.dev.jsonl` for calibration).
        out_dir: Artifact folder to write (`weights.safetensors`, `manifest.json`).
        config: Hyper-parameters.
        calibrate: Choose thresholds and measure metrics on the dev files afterwards.
    """
    torch.manual_seed(config.seed)
    files = split_files(data_dir, "train")
    records = load_records(files)
    random.Random(config.seed).shuffle(records)
    records = records[: config.limit] if config.limit else records
    pairs = build_pairs(records, strips=True, seed=config.seed)
    logger.info("training the evaluator on %d pairs from %d questions", len(pairs), len(records))
    if config.architecture == "embedding-head":
        manifest = _train_head(pairs, out_dir, config)
    else:
        manifest = _train_cross_encoder(pairs, out_dir, config)
    manifest = _describe(out_dir, manifest, files, len(records), len(pairs), config)
    if calibrate:
        from models.training.calibrate import calibrate_evaluator

        manifest = calibrate_evaluator(out_dir, data_dir)
    return manifest


def _describe(
    out_dir: Path,
    manifest: dict[str, Any],
    files: list[Path],
    questions: int,
    pairs: int,
    config: EvaluatorConfig,
) -> dict[str, Any]:
    manifest = {
        **manifest,
        "kind": "evaluator",
        "score": "2 * sigmoid(logit) - 1",
        "training_data": {
            "files": [f.name for f in files],
            "sha256": files_sha256(files),
            "questions": questions,
            "pairs": pairs,
        },
        "seed": config.seed,
        "hyperparameters": {**asdict(config), "resume": str(config.resume or "")},
    }
    write_manifest(out_dir, manifest)
    return read_manifest(out_dir, kind="evaluator")


def _train_head(pairs: list[Pair], out_dir: Path, config: EvaluatorConfig) -> dict[str, Any]:
    start = time.perf_counter()
    vectors = embed_texts([p.question for p in pairs] + [p.text for p in pairs])
    embedded = time.perf_counter()
    head, loss = fit_head(
        torch.stack([vectors[p.question] for p in pairs]),
        torch.stack([vectors[p.text] for p in pairs]),
        torch.tensor([p.label for p in pairs]),
        epochs=config.head_epochs,
        seed=config.seed,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    save_head(head, out_dir / WEIGHTS)
    training = {
        "embedding_seconds": embedded - start,
        "head_seconds": time.perf_counter() - embedded,
        "epochs": config.head_epochs,
        "final_loss": loss,
        "distinct_texts": len(vectors),
    }
    return {"architecture": "embedding-head", "training": training}


def _train_cross_encoder(
    pairs: list[Pair], out_dir: Path, config: EvaluatorConfig
) -> dict[str, Any]:
    lora = {"rank": config.lora_rank, "alpha": config.lora_alpha} if config.lora_rank else None
    model, tokenizer = build_model(1, top_layers=config.top_layers, lora=lora)
    phases: list[dict[str, Any]] = []
    if config.resume:
        phases = resume_from(model, config.resume, kind="evaluator")
    fit = fine_tune(
        model,
        tokenizer,
        [p.question for p in pairs],
        [p.text for p in pairs],
        [p.label for p in pairs],
        steps=config.steps,
        batch_size=config.batch_size,
        lr=config.lr,
        max_length=config.max_length,
        seed=config.seed,
        time_budget=config.time_budget,
    )
    manifest: dict[str, Any] = {
        "max_length": config.max_length,
        "training": asdict(fit),
        "training_phases": [*phases, {"seed": config.seed, **asdict(fit)}],
    }
    save_artifact(out_dir, model, top_layers=config.top_layers, manifest=manifest, lora=lora)
    return json.loads((out_dir / MANIFEST).read_text())
