"""One named index: a Chroma collection plus its BM25 twin, opened together."""

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from chromadb.api.models.Collection import Collection
from langchain_core.embeddings import Embeddings

from stores.chroma import (
    EMBEDDER_KEY,
    LEGACY_EMBEDDER,
    chroma_client,
    open_collection,
    recorded_embedder,
    store_dir,
)
from stores.lexical import LexicalIndex
from stores.structure import CHUNKER_VERSION

__all__ = [
    "EMBEDDER_KEY",
    "LEGACY_EMBEDDER",
    "Index",
    "open_index",
    "recorded_embedder",
    "reingest_needed",
    "stamp_chunker",
    "stamp_embedder",
]

logger = logging.getLogger(__name__)

# Loaded BM25 indexes by folder, with the build id they were loaded from: retrievers reuse
# them instead of reading the files again, and notice a rebuild by any process.
_loaded: dict[Path, tuple[str, LexicalIndex]] = {}
_loaded_lock = threading.Lock()


@dataclass
class Index:
    """A Chroma collection and the BM25 index kept in sync with it."""

    collection: Collection
    lexical: LexicalIndex

    def fresh_lexical(self) -> LexicalIndex:
        """Return the BM25 index, rebuilding it from Chroma if it is missing or stale."""
        count = self.collection.count()
        folder = self.lexical.folder
        with _loaded_lock:
            fresh = self.lexical.is_fresh(count)
            cached = _loaded.get(folder)
            if fresh and cached and cached[0] == self.lexical.stamp.get("build"):
                return cached[1]
            if not (fresh and self.lexical.load()):
                logger.info("rebuilding the BM25 index in %s from %d chunks", folder, count)
                self.lexical.rebuild(self.collection)
            _loaded[folder] = (str(self.lexical.stamp.get("build")), self.lexical)
            return self.lexical


def open_index(
    *,
    home: Path,
    collection: str = "documents",
    chroma_url: str | None = None,
    embeddings: Embeddings | None = None,
) -> Index:
    """Open (creating if needed) collection `collection` and its BM25 folder."""
    client = chroma_client(home=home, chroma_url=chroma_url)
    chroma = open_collection(client, collection, embeddings=embeddings)
    return Index(chroma, LexicalIndex(store_dir(home, chroma_url) / "bm25" / collection))


def _set_metadata(collection: Collection, key: str, value: str) -> None:
    """Set one metadata key, keeping the others (Chroma's `modify` replaces them all)."""
    kept = {k: v for k, v in (collection.metadata or {}).items() if not k.startswith("hnsw:")}
    if kept.get(key) != value:
        collection.modify(metadata={**kept, key: value})


def stamp_embedder(index: Index, name: str) -> str | None:
    """Record which embedder built the index; return a note when it is the slower float32."""
    _set_metadata(index.collection, EMBEDDER_KEY, name)
    if name != LEGACY_EMBEDDER:
        return None
    return (
        "this index holds float32 MiniLM vectors, so new chunks are embedded in float32 too "
        "(about half the speed of int8); for faster ingestion, re-ingest your documents into "
        "a new collection or home (`--collection NAME` or `--home DIR`)"
    )


_PAGE = 5000


def _legacy_sources(collection: Collection) -> set[str]:
    """Return the files whose chunks were cut by an older chunker (JSONL passages excepted)."""
    old: set[str] = set()
    for start in range(0, collection.count(), _PAGE):
        rows = collection.get(include=["metadatas"], limit=_PAGE, offset=start)["metadatas"]
        for meta in rows or []:
            source = str(meta.get("source", ""))
            if meta.get("chunker") != CHUNKER_VERSION and not source.endswith(".jsonl"):
                old.add(source)
    return old


def stamp_chunker(index: Index) -> str | None:
    """Record on the collection which chunker cut it; say which files need re-ingesting."""
    old = _legacy_sources(index.collection)
    stamp = "mixed" if old else CHUNKER_VERSION
    _set_metadata(index.collection, "chunker", stamp)
    if not old:
        return None
    names = ", ".join(sorted(old)[:3]) + (f" and {len(old) - 3} more" if len(old) > 3 else "")
    return (
        f"re-ingest needed: {len(old)} file(s) were chunked before {CHUNKER_VERSION} "
        f"(no heading paths, option lists cut mid-entry): {names}"
    )


def reingest_needed(index: Index) -> str | None:
    """Return a warning when the index was not (wholly) cut by today's chunker."""
    stamp = (index.collection.metadata or {}).get("chunker")
    if stamp == CHUNKER_VERSION or index.collection.count() == 0:
        return None
    return (
        f"this index was built {'partly ' if stamp == 'mixed' else ''}before chunker "
        f"{CHUNKER_VERSION}: re-ingest needed for structure-aware chunks "
        "(run `acrag ingest` again on your documents; unchanged files are re-cut once)"
    )
