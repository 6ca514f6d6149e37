"""Chroma vector store: embedded `PersistentClient` under the home, or `HttpClient` by URL.

Chroma is always handed our MiniLM embedding function: its built-in default downloads a model
at first use, which fails offline.
"""

import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import chromadb
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.api.types import Documents, EmbeddingFunction
from chromadb.api.types import Embeddings as ChromaEmbeddings
from chromadb.config import Settings
from chromadb.utils.embedding_functions import register_embedding_function
from langchain_core.embeddings import Embeddings

from models.embeddings import MiniLMEmbeddings
from models.errors import UserError

__all__ = [
    "EMBEDDER_KEY",
    "LEGACY_EMBEDDER",
    "ChromaUnavailableError",
    "MiniLMChromaFunction",
    "chroma_client",
    "open_collection",
    "recorded_embedder",
    "store_dir",
]

logger = logging.getLogger(__name__)

EMBEDDER_KEY = "embedder"
"""Collection metadata naming the embedder that built its vectors (`MiniLMEmbeddings.name`)."""
LEGACY_EMBEDDER = "minilm-l6-v2-fp32"
"""What built an index that records no embedder but holds chunks: float32 MiniLM."""


class ChromaUnavailableError(UserError):
    """The configured Chroma server cannot be reached or the URL is malformed."""


@register_embedding_function
class MiniLMChromaFunction(EmbeddingFunction[Documents]):
    """Chroma embedding function over a LangChain `Embeddings` (MiniLM by default)."""

    def __init__(self, embeddings: Embeddings | None = None) -> None:
        self.embeddings = embeddings or MiniLMEmbeddings()

    def __call__(self, input: Documents) -> ChromaEmbeddings:
        """Embed documents for Chroma."""
        import numpy as np

        vectors = self.embeddings.embed_documents(list(input))
        return [np.asarray(row, dtype=np.float32) for row in vectors]

    @staticmethod
    def name() -> str:
        """Return the name under which Chroma records this function."""
        return "acrag-minilm"

    def get_config(self) -> dict[str, Any]:
        """Return the (empty) configuration Chroma persists with a collection."""
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> "MiniLMChromaFunction":
        """Rebuild the function from a persisted configuration."""
        return MiniLMChromaFunction()

    def default_space(self) -> str:  # type: ignore[override]
        """Return cosine: MiniLM vectors are unit-normalised."""
        return "cosine"


def store_dir(home: Path, chroma_url: str | None) -> Path:
    """Return the folder for this store's local files (the BM25 index lives here too)."""
    if chroma_url is None:
        return home / "chroma"
    parsed = urlparse(chroma_url)
    slug = f"{parsed.hostname or 'server'}_{parsed.port or 8000}"
    return home / "remote" / slug


def chroma_client(*, home: Path, chroma_url: str | None = None) -> ClientAPI:
    """Return an embedded client under `home`, or an HTTP client for `chroma_url`."""
    settings = Settings(anonymized_telemetry=False)
    if chroma_url is None:
        path = store_dir(home, None)
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=settings)
    parsed = urlparse(chroma_url)
    if parsed.scheme not in {"http", "https"} or not parsed.hostname:
        raise ChromaUnavailableError(f"not a Chroma server URL: {chroma_url!r}")
    port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    try:
        return chromadb.HttpClient(
            host=parsed.hostname, port=port, ssl=parsed.scheme == "https", settings=settings
        )
    except Exception as error:  # chromadb raises bare ValueError/ConnectError variants
        raise ChromaUnavailableError(f"cannot reach Chroma at {chroma_url}: {error}") from error


def open_collection(
    client: ClientAPI, name: str, *, embeddings: Embeddings | None = None
) -> Collection:
    """Get or create collection `name` with the MiniLM embedding function and cosine space.

    Without `embeddings`, queries are embedded by the MiniLM precision that built the
    collection (`EMBEDDER_KEY`; float32 for an index that records none).
    """
    function: Any = MiniLMChromaFunction(embeddings)  # Chroma's generic protocol is too narrow
    collection = client.get_or_create_collection(
        name=name,
        embedding_function=function,
        configuration={"hnsw": {"space": "cosine"}},
    )
    if embeddings is None:
        recorded = recorded_embedder(collection)
        function.embeddings = MiniLMEmbeddings.from_name(recorded or "") or MiniLMEmbeddings()
    return collection


def recorded_embedder(collection: Collection) -> str | None:
    """Return the embedder that built `collection`'s vectors; None when it is new and empty."""
    name = (collection.metadata or {}).get(EMBEDDER_KEY)
    if name:
        return str(name)
    return LEGACY_EMBEDDER if collection.count() else None
