"""Fine-tune a MiniLM cross-encoder on labelled text pairs and save it as a judge artifact.

Shared by the judges that read two texts together (the CRAG retrieval evaluator, the support
judge): the packaged MiniLM with LoRA adapters on every encoder layer (or its top layers
trained outright), one logit trained with binary cross-entropy (`training.loop`),
saved with `models.artifact.save_artifact`.
"""

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from models.artifact import MANIFEST, build_model, resume_from, save_artifact
from training.loop import fine_tune

__all__ = ["CrossEncoderConfig", "train_cross_encoder"]


@dataclass(frozen=True)
class CrossEncoderConfig:
    """Hyper-parameters of a cross-encoder training run."""

    steps: int = 1600
    batch_size: int = 16
    lr: float = 5e-4
    max_length: int = 160
    time_budget: float | None = None
    """Stop (with the learning rate fully decayed) after this many seconds."""
    top_layers: int = 0
    """How many of MiniLM's top layers are trained outright."""
    lora_rank: int = 16
    """Rank of low-rank adapters on every encoder layer (0 for none)."""
    lora_alpha: float = 32.0
    seed: int = 13
    limit: int | None = None
    """Use only the first `limit` training questions (after a seeded shuffle)."""
    resume: Path | None = None
    """Start from the trained tensors of this artifact (continue training; use a new seed)."""


def train_cross_encoder(
    first: Sequence[str],
    second: Sequence[str],
    labels: Sequence[int],
    out_dir: Path,
    config: CrossEncoderConfig,
    *,
    kind: str,
) -> dict[str, Any]:
    """Fine-tune on (first, second) -> label, save to `out_dir` and return the saved manifest.

    Args:
        first: The first segment of each pair (e.g. the question).
        second: The second segment (e.g. the passage).
        labels: 1 for a positive pair, 0 for a negative one.
        out_dir: Artifact folder to write.
        config: Hyper-parameters.
        kind: The judge kind, checked when resuming from an earlier artifact.
    """
    lora = {"rank": config.lora_rank, "alpha": config.lora_alpha} if config.lora_rank else None
    model, tokenizer = build_model(1, top_layers=config.top_layers, lora=lora)
    phases: list[dict[str, Any]] = []
    if config.resume:
        phases = resume_from(model, config.resume, kind=kind)
    fit = fine_tune(
        model,
        tokenizer,
        first,
        second,
        labels,
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
    saved: dict[str, Any] = json.loads((out_dir / MANIFEST).read_text())
    return saved
