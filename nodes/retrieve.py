"""Node `retrieve`: fetch passages from the local index for the current search query."""

from typing import Any, Literal

from langchain_core.documents import Document
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import event
from graphs.state import Passage, State, content_hash
from nodes._degrade import retry_or_degrade

__all__ = ["retrieve", "to_passage"]


def to_passage(document: Document, *, query: str, step: int) -> Passage:
    """Turn a retrieved Document (local or web) into a Passage."""
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
) -> tuple[list[Document], list[dict[str, Any]]]:
    """Return the retriever's documents, or none and a `fallback` event once retries are spent.

    Once the index failed in this run, later retrievals (IRCoT steps) try once, not again.
    """
    try:
        retriever = deps.retriever_for(runtime.context)
        return retriever.invoke(query, config={"run_name": "retrieve"}), []
    except Exception as error:  # noqa: BLE001 - a store failure degrades the run, never ends it
        failed_before = any(
            e.get("node") == "retrieve" and e.get("degraded") for e in state.get("events") or []
        )
        reason = retry_or_degrade(runtime, error, "the local index", retry=not failed_before)
    used = "no local passages"
    fallback = event(
        runtime,
        "fallback",
        "retrieve",
        judge="retriever",
        problem=reason,
        used=used,
        degraded=reason,
    )
    return [], [fallback]


def retrieve(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Retrieve top-k passages; on route C, stay within the paragraph cap."""
    context = runtime.context
    query = state.get("search_query") or state["standalone_question"]
    step = state.get("retrievals", 0)
    known = {p["hash"] for p in state.get("passages") or []}
    documents, degraded = _fetch(state, query, runtime, deps)
    found = [to_passage(d, query=query, step=step) for d in documents]
    new = [p for p in found if p["hash"] not in known]
    dropped = 0
    if state.get("route") == "C":
        room = max(context.ircot_max_paragraphs - len(known), 0)
        dropped, new = max(len(new) - room, 0), new[:room]
    events = degraded + [
        event(
            runtime,
            "retrieval",
            "retrieve",
            query=query,
            step=step,
            found=len(found),
            new=len(new),
            passages=[
                {"title": p["title"], "source": p["source"], "position": p["position"]} for p in new
            ],
        )
    ]
    if dropped:
        events.append(
            event(
                runtime,
                "cap_reached",
                "retrieve",
                cap="ircot_max_paragraphs",
                limit=context.ircot_max_paragraphs,
                dropped=dropped,
            )
        )
    return {"passages": new, "retrievals": step + 1, "events": events}
