"""One named index: a Chroma collection plus its BM25 twin, opened together."""

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from chromadb.api.models.Collection import Collection
from langchain_core.embeddings import Embeddings

from stores.chroma import chroma_client, open_collection, store_dir
from stores.lexical import LexicalIndex

__all__ = ["Index", "open_index"]

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
