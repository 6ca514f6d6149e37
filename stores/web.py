"""Web search behind one interface: Tavily, an offline "local web" corpus, or nothing.

`search` never raises for network trouble: it returns a `WebResults` whose `degraded` says
what went wrong, so the graph can carry on with what it has.
"""

import logging
import os
from pathlib import Path
from typing import Any, Literal

from langchain_core.documents import Document

from stores.web_results import WebResults, WebSearch

__all__ = [
    "LOCAL_WEB_COLLECTION",
    "FallbackWebSearch",
    "LocalWebSearch",
    "NoWebSearch",
    "WebResults",
    "WebSearch",
    "make_web_search",
]

logger = logging.getLogger(__name__)

LOCAL_WEB_COLLECTION = "web"
Backend = Literal["auto", "tavily", "local", "none"]


class NoWebSearch:
    """The backend used when web search is off or unavailable: always empty."""

    def __init__(self, reason: str = "web search is disabled") -> None:
        self.reason = reason

    def search(self, query: str, *, max_results: int = 5) -> WebResults:
        """Return no pages, with the reason."""
        return WebResults([], "none", self.reason)


class LocalWebSearch:
    """Offline stand-in for the web: hybrid search over a separately ingested corpus."""

    def __init__(
        self, *, home: Path, collection: str = LOCAL_WEB_COLLECTION, chroma_url: str | None = None
    ) -> None:
        from stores.retrieval import make_retriever

        self.retriever: Any = make_retriever(
            home=home, collection=collection, chroma_url=chroma_url
        )

    def search(self, query: str, *, max_results: int = 5) -> WebResults:
        """Return the best local-web chunks shaped like web pages."""
        try:  # ask for `max_results` directly: the retriever may be shared between threads
            found = self.retriever.hybrid(query, max_results) if query.strip() else []
        except Exception as error:  # a broken local index must not stop the graph
            logger.warning("local web search failed: %s", error)
            return WebResults([], "local", f"local web search failed: {error}")
        return WebResults([_as_web_page(doc) for doc in found], "local", None)


def _as_web_page(doc: Document) -> Document:
    meta = doc.metadata
    url = meta.get("url")  # a file of the local web has no URL: no server path as one either
    return Document(
        page_content=doc.page_content,
        metadata={
            "url": url,
            "title": meta.get("title", ""),
            "score": float(meta.get("score", 0.0)),
            "origin": "web",
            "source": url or meta.get("source", ""),
        },
    )


class FallbackWebSearch:
    """Try backends in order; return the first non-empty result, else the last one."""

    def __init__(self, *backends: WebSearch) -> None:
        self.backends = backends

    def search(self, query: str, *, max_results: int = 5) -> WebResults:
        """Search each backend until one returns pages; keep the reasons of those that failed."""
        reasons: list[str] = []
        result = WebResults([], "none", "no web search backend")
        for backend in self.backends:
            result = backend.search(query, max_results=max_results)
            if result.documents:
                break
            if result.degraded:
                reasons.append(f"{result.backend}: {result.degraded}")
        if reasons:
            result.degraded = "; ".join(reasons)
        return result


def _local_corpus_exists(home: Path, chroma_url: str | None, collection: str) -> bool:
    from stores.chroma import chroma_client

    if chroma_url is None and not (home / "chroma").exists():
        return False
    try:
        names = {
            getattr(c, "name", c)
            for c in chroma_client(home=home, chroma_url=chroma_url).list_collections()
        }
    except Exception as error:  # an unreachable server just means "no local web"
        logger.info("cannot list Chroma collections: %s", error)
        return False
    return collection in names


def make_web_search(backend: Backend = "auto", *, home: Path, **options: Any) -> WebSearch:
    """Return the web search for `backend`.

    `auto` uses Tavily when `TAVILY_API_KEY` (or `api_key=`) is set, falling back to the
    local web corpus if it exists; without a key it uses the local corpus, else nothing.
    Options: `api_key`, `api_base_url`, `include_domains`, `exclude_domains`,
    `authoritative_domains`, `include_raw_content`, `retries`, `backoff`, `timeout` (Tavily);
    `collection`, `chroma_url` (local).
    """
    from stores.tavily_search import TavilyWebSearch

    collection = options.pop("collection", LOCAL_WEB_COLLECTION)
    chroma_url = options.pop("chroma_url", None)
    has_key = bool(options.get("api_key") or os.environ.get("TAVILY_API_KEY"))
    match backend:
        case "tavily":
            return TavilyWebSearch(**options)
        case "local":
            return LocalWebSearch(home=home, collection=collection, chroma_url=chroma_url)
        case "none":
            return NoWebSearch()
        case "auto":
            local = None
            if _local_corpus_exists(home, chroma_url, collection):
                local = LocalWebSearch(home=home, collection=collection, chroma_url=chroma_url)
            if has_key:
                tavily = TavilyWebSearch(**options)
                return FallbackWebSearch(tavily, local) if local else tavily
            if local:
                return local
            return NoWebSearch("no TAVILY_API_KEY and no local web corpus (acrag ingest --web)")
    raise ValueError(f"unknown web search backend {backend!r}")
