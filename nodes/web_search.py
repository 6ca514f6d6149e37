"""Node `web_search`: search the web (or the offline web corpus) and split pages into paragraphs."""

from typing import TypedDict

from langchain_core.documents import Document
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import WebResultsEvent, emit
from graphs.state import Passage, State
from nodes._degrade import retry_or_degrade
from nodes.retrieve import to_passage

__all__ = ["WebUpdate", "paragraphs", "web_search"]

_MIN_PARAGRAPH_CHARS = 40


def paragraphs(document: Document) -> list[Document]:
    """Split a web page into its paragraphs (blank-line separated), keeping the metadata."""
    parts = [p.strip() for p in document.page_content.split("\n\n")]
    kept = [p for p in parts if len(p) >= _MIN_PARAGRAPH_CHARS] or [document.page_content.strip()]
    return [
        Document(page_content=p, metadata={**document.metadata, "origin": "web"}) for p in kept if p
    ]


class WebUpdate(TypedDict):
    """What `web_search` writes."""

    passages: list[Passage]
    web_searched: bool
    degraded: list[str]
    """A failed or degraded backend (said in its `web_results` event, not a fallback)."""


def _search(
    query: str, runtime: Runtime[Context], deps: Deps
) -> tuple[str, str | None, list[Document]]:
    """Return the backend used, why its results are degraded (if so), and their paragraphs."""
    context = runtime.context
    if context.web_backend == "none":
        return "none", "web search is disabled", []
    try:
        results = deps.web_for(context).search(query, max_results=context.web_k)
    except Exception as error:  # noqa: BLE001 - a web failure degrades the run (retried)
        return context.web_backend, retry_or_degrade(runtime, error, "web search"), []
    found = [p for d in results.documents for p in paragraphs(d)]
    return results.backend, results.degraded, found


def web_search(state: State, runtime: Runtime[Context], deps: Deps) -> WebUpdate:
    """Search for the rewritten query; the paragraphs join the passages as web knowledge."""
    query = state.get("search_query") or state["standalone_question"]
    backend, degraded, found = _search(query, runtime, deps)
    step = state.get("retrievals", 0)
    passages: list[Passage] = [to_passage(d, query=query, step=step) for d in found]
    shown = WebResultsEvent(
        type="web_results",
        node="web_search",
        query=query,
        backend=backend,
        degraded=degraded,
        results=[{"title": p["title"], "url": p["url"]} for p in passages],
    )
    emit(runtime, shown)
    reasons = [degraded] if degraded and backend != "none" else []
    return WebUpdate(passages=passages, web_searched=True, degraded=reasons)
