"""Train CRAG's retrieval evaluator: a MiniLM cross-encoder scoring (question, passage) pairs.

Training pairs come only from `qa/*.train.jsonl` (see `training.data.build_pairs`):
relevant passages, same-question non-relevant passages (hard negatives), other questions'
passages (easy negatives), and strip-level pairs. One logit is trained with binary
cross-entropy; the evaluator reports `2 * sigmoid(logit) - 1` in [-1, 1]. Thresholds are then
chosen on `qa/*.dev.jsonl` (`training.calibrate`) and written into the manifest.
"""

import logging
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import torch

from models.artifact import WEIGHTS, read_manifest, write_manifest
from models.heads import embed_texts, save_head
from training.cross_encoder import CrossEncoderConfig, train_cross_encoder
from training.data import Pair, build_pairs, files_sha256, load_records, split_files
from training.embed_head import fit_head

__all__ = ["EvaluatorConfig", "train_evaluator"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvaluatorConfig(CrossEncoderConfig):
    """Hyper-parameters of an evaluator training run (cross-encoder ones inherited)."""

    architecture: Literal["embedding-head", "cross-encoder"] = "cross-encoder"
    """MiniLM fine-tuned on the concatenated pair, or a head over frozen MiniLM embeddings."""
    head_epochs: int = 20
    negatives: Literal["topic", "hard", "hard-focus", "mixed"] = "topic"
    """`topic`: `data.build_pairs`; `hard`: plus on-topic answer-less negatives and answer
    windows (`training.hard_negatives`); `hard-focus`: those without easy negatives and
    strips (to continue a trained evaluator with `resume`); `mixed`: `topic`'s pairs at their
    share plus the on-topic ones (`hard_negatives.MIXED`)."""


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
    if config.negatives != "topic":
        from training.hard_negatives import FOCUS, MIXED, build_hard_pairs

        options = {"hard": {}, "hard-focus": FOCUS, "mixed": MIXED}[config.negatives]
        pairs = build_hard_pairs(records, seed=config.seed, **options)  # type: ignore[arg-type]
    else:
        pairs = build_pairs(records, strips=True, seed=config.seed)
    logger.info("training the evaluator on %d pairs from %d questions", len(pairs), len(records))
    if config.architecture == "embedding-head":
        manifest = _train_head(pairs, out_dir, config)
    else:
        manifest = _train_cross_encoder(pairs, out_dir, config)
    manifest = _describe(out_dir, manifest, files, len(records), len(pairs), config)
    if calibrate:
        from training.calibrate import calibrate_evaluator

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
    first, second = [p.question for p in pairs], [p.text for p in pairs]
    labels = [p.label for p in pairs]
    return train_cross_encoder(first, second, labels, out_dir, config, kind="evaluator")
