"""Train the support judge (Self-RAG's IsSup): a MiniLM cross-encoder over answer and evidence.

Training pairs come only from `qa/*.train.jsonl` and the `silver.train*.jsonl` label files
(`training.support_data`); the recipe is the evaluator's (`training.
cross_encoder`: LoRA on every MiniLM layer, one logit, binary cross-entropy). The judge reports
`2 * sigmoid(logit) - 1` in [-1, 1]. Thresholds are then chosen on `qa/*.dev.jsonl`
(`training.calibrate_support`) and written into the manifest.
"""

import logging
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from models.artifact import read_manifest, write_manifest
from models.errors import UserError
from models.support import KIND, WINDOW_SENTENCES, WINDOW_STRIDE, support_input
from training.cross_encoder import CrossEncoderConfig, train_cross_encoder
from training.data import files_sha256, load_records, split_files
from training.support_data import (
    build_support_pairs,
    pair_counts,
    read_silver,
    silver_files,
)

__all__ = ["SupportConfig", "train_support"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SupportConfig(CrossEncoderConfig):
    """Hyper-parameters of a support-judge training run."""

    steps: int = 1200
    max_length: int = 192
    """Question, answer and a three-sentence window fit in ~190 tokens (p90 of the windows)."""


def _train_records(
    data_dir: Path, config: SupportConfig
) -> tuple[list[Path], list[dict[str, Any]]]:
    files = split_files(data_dir, "train")
    records = load_records(files)
    stray = sorted({str(r.get("split")) for r in records} - {"train", "None"})
    if stray:
        raise UserError(f"training files hold {', '.join(stray)} questions; train on train only")
    random.Random(config.seed).shuffle(records)
    return files, records[: config.limit] if config.limit else records


def train_support(
    data_dir: Path,
    out_dir: Path,
    config: SupportConfig,
    *,
    labels_dir: Path,
    calibrate: bool = True,
) -> dict[str, Any]:
    """Train, save, then (optionally) choose thresholds and measure on dev; return the manifest.

    Args:
        data_dir: Folder holding `qa/*.train.jsonl` (and `qa/*.dev.jsonl` for calibration).
        out_dir: Artifact folder to write (`weights.safetensors`, `manifest.json`).
        config: Hyper-parameters.
        labels_dir: Folder holding the silver-label files (`silver.train*.jsonl`,
            `silver.dev*.jsonl`).
        calibrate: Choose thresholds and measure metrics on the dev files afterwards.
    """
    torch.manual_seed(config.seed)
    files, records = _train_records(data_dir, config)
    silver = silver_files(labels_dir, "train")
    pairs = build_support_pairs(records, silver=read_silver(silver), seed=config.seed)
    logger.info(
        "training the support judge on %d pairs from %d questions", len(pairs), len(records)
    )
    first, second = [p.first for p in pairs], [p.evidence for p in pairs]
    trained = train_cross_encoder(
        first, second, [p.label for p in pairs], out_dir, config, kind=KIND
    )
    manifest = {
        **trained,
        "kind": KIND,
        "score": "2 * sigmoid(logit) - 1, the best over the evidence windows",
        "input": support_input("{question}", "{answer}") + " / {evidence window}",
        "windows": {"sentences": WINDOW_SENTENCES, "stride": WINDOW_STRIDE},
        "training_data": {
            "files": [f.name for f in files],
            "sha256": files_sha256(files),
            "silver_files": [f.name for f in silver],
            "silver_sha256": files_sha256(silver),
            "questions": len(records),
            **pair_counts(pairs),
        },
        "seed": config.seed,
        "hyperparameters": {**asdict(config), "resume": str(config.resume or "")},
    }
    write_manifest(out_dir, manifest)
    if calibrate:
        from training.calibrate_support import calibrate_support

        return calibrate_support(out_dir, data_dir, labels_dir=labels_dir)
    return read_manifest(out_dir, kind=KIND)
