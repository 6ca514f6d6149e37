"""Dense (Chroma), lexical (BM25) and hybrid (reciprocal-rank fusion) retrieval."""

import logging
from pathlib import Path
from typing import Any, Literal

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from stores.home import display_source
from stores.index import Index, open_index, reingest_needed

__all__ = ["RRF_K", "HybridRetriever", "Mode", "make_retriever", "reciprocal_rank_fusion"]

logger = logging.getLogger(__name__)

Mode = Literal["dense", "bm25", "hybrid"]
RRF_K = 60


def reciprocal_rank_fusion(rankings: list[list[str]], *, k: int = RRF_K) -> dict[str, float]:
    """Fuse ranked id lists: each id scores the sum of 1 / (k + rank) over the lists."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores


def _document(
    text: str, metadata: dict[str, Any], score: float, home: Path | None = None
) -> Document:
    meta = dict(metadata)
    meta.update(score=float(score), origin="local")
    # The index keys a file by its absolute path; what leaves the store is a display name.
    meta["source"] = display_source(str(meta.get("source", "")), home=home)
    meta["position"] = int(meta.get("position", 0))
    return Document(page_content=text, metadata=meta, id=str(meta.get("id")))


class HybridRetriever(BaseRetriever):
    """Retrieve the top `k` chunks by dense, BM25 or fused hybrid ranking.

    Every document carries `metadata["score"]` (higher is better): cosine similarity for
    dense, the BM25 score for bm25, and the fused RRF score for hybrid.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    index: Index
    k: int = 5
    mode: Mode = "hybrid"
    depth: int = Field(default=30, description="candidates per ranking fed into the fusion")
    home: Path | None = Field(default=None, description="data home that display sources leave")

    def dense(self, query: str, n: int) -> list[Document]:
        """Return up to `n` chunks by cosine similarity."""
        count = self.index.collection.count()
        if count == 0 or n < 1:
            return []
        found = self.index.collection.query(
            query_texts=[query],
            n_results=min(n, count),
            include=["documents", "metadatas", "distances"],
        )
        rows = zip(found["documents"][0], found["metadatas"][0], found["distances"][0], strict=True)  # type: ignore[index]
        return [_document(text, dict(meta), 1.0 - dist, self.home) for text, meta, dist in rows]

    def lexical(self, query: str, n: int) -> list[Document]:
        """Return up to `n` chunks by BM25 score."""
        hits = self.index.fresh_lexical().search(query, k=n)
        return [_document(h.record.text, h.record.metadata, h.score, self.home) for h in hits]

    def hybrid(self, query: str, n: int) -> list[Document]:
        """Return up to `n` chunks by reciprocal-rank fusion of dense and BM25 rankings."""
        depth = max(self.depth, n)
        by_id: dict[str, Document] = {}
        rankings = []
        for docs in (self.dense(query, depth), self.lexical(query, depth)):
            rankings.append([str(d.metadata["id"]) for d in docs])
            for doc in docs:
                by_id.setdefault(str(doc.metadata["id"]), doc)
        fused = sorted(reciprocal_rank_fusion(rankings).items(), key=lambda kv: -kv[1])[:n]
        return [_document(by_id[i].page_content, by_id[i].metadata, s, self.home) for i, s in fused]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        if not query.strip():
            return []
        match self.mode:
            case "dense":
                return self.dense(query, self.k)
            case "bm25":
                return self.lexical(query, self.k)
            case "hybrid":
                return self.hybrid(query, self.k)
            case _:
                raise ValueError(f"unknown retrieval mode {self.mode!r}")


def make_retriever(
    *,
    home: Path | str,
    k: int = 5,
    mode: Mode = "hybrid",
    chroma_url: str | None = None,
    collection: str = "documents",
) -> BaseRetriever:
    """Return a retriever over `collection` under `home` (or on the Chroma server at the URL)."""
    if mode not in ("dense", "bm25", "hybrid"):
        raise ValueError(f"unknown retrieval mode {mode!r}; use dense, bm25 or hybrid")
    home = Path(home).expanduser()
    index = open_index(home=home, collection=collection, chroma_url=chroma_url)
    if warning := reingest_needed(index):
        logger.warning(warning)
    return HybridRetriever(index=index, k=k, mode=mode, home=home)
