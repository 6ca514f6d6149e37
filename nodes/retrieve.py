"""Node `retrieve`: fetch passages from the local index for the current search query."""

from typing import Any, Literal

from langchain_core.documents import Document
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import CapReachedEvent, Event, FallbackEvent, RetrievalEvent, SourceRef, emit
from graphs.state import Passage, State, content_hash
from nodes._degrade import retry_or_degrade

__all__ = ["retrieve", "to_passage"]

_INDEX = "the local index"


def to_passage(document: Document, *, query: str, step: int) -> Passage:
    """Turn a retrieved Document (local or web) into an ungraded Passage."""
    meta = document.metadata
    origin: Literal["local", "web"] = "web" if meta.get("origin") == "web" else "local"
    url = meta.get("url")
    position = meta.get("position")
    return Passage(
        hash=content_hash(document.page_content),
        text=document.page_content,
        title=str(meta.get("title") or ""),
        source=str(meta.get("source") or url or "unknown"),
        position=int(position) if isinstance(position, int | float) else None,
        url=str(url) if url else None,
        origin=origin,
        query=query,
        step=step,
        score=None,
    )


def _fetch(
    state: State, query: str, runtime: Runtime[Context], deps: Deps
) -> tuple[list[Document], str | None]:
    """Return the retriever's documents, or none and why once retries are spent.

    Once the index failed in this run, later retrievals (IRCoT steps) try once, not again.
    """
    try:
        retriever = deps.retriever_for(runtime.context)
        return retriever.invoke(query, config={"run_name": "retrieve"}), None
    except Exception as error:  # noqa: BLE001 - a store failure degrades the run, never ends it
        failed_before = any(r.startswith(_INDEX) for r in state.get("degraded") or [])
        return [], retry_or_degrade(runtime, error, _INDEX, retry=not failed_before)


def retrieve(
    state: State, runtime: Runtime[Context], deps: Deps, *, paragraph_cap: bool = False
) -> dict[str, Any]:
    """Retrieve top-k new passages; inside IRCoT (`paragraph_cap`) stay within its cap."""
    context = runtime.context
    query = state.get("search_query") or state["standalone_question"]
    step = state.get("retrievals", 0)
    known = {p["hash"] for p in state.get("passages") or []}
    documents, failure = _fetch(state, query, runtime, deps)
    found = [to_passage(d, query=query, step=step) for d in documents]
    new = [p for p in found if p["hash"] not in known]
    room = max(context.ircot_max_paragraphs - len(known), 0) if paragraph_cap else len(new)
    dropped, new = max(len(new) - room, 0), new[:room]
    events: list[Event] = []
    if failure:
        events.append(
            FallbackEvent(
                type="fallback",
                node="retrieve",
                judge="retriever",
                problem=failure,
                used="no local passages",
                degraded=failure,
            )
        )
    refs = [SourceRef(title=p["title"], source=p["source"], position=p["position"]) for p in new]
    events.append(
        RetrievalEvent(
            type="retrieval",
            node="retrieve",
            query=query,
            step=step,
            found=len(found),
            new=len(new),
            passages=refs,
        )
    )
    if dropped:
        events.append(
            CapReachedEvent(
                type="cap_reached",
                node="retrieve",
                cap="ircot_max_paragraphs",
                limit=context.ircot_max_paragraphs,
                reason=f"{dropped} passage(s) over IRCoT's paragraph cap were left out",
            )
        )
    return {
        "passages": new,
        "retrievals": step + 1,
        "events": [emit(runtime, e) for e in events],
        "degraded": [failure] if failure else [],
    }
