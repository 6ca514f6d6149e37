"""Node `retrieve`: fetch passages from the local index for the current search query."""

from typing import Any, Literal

from langchain_core.documents import Document
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import event
from graphs.state import Passage, State, content_hash

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


def retrieve(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Retrieve top-k passages; on route C, stay within the paragraph cap."""
    context = runtime.context
    query = state.get("search_query") or state["standalone_question"]
    step = state.get("retrievals", 0)
    known = {p["hash"] for p in state.get("passages") or []}
    documents = deps.retriever_for(context).invoke(query, config={"run_name": "retrieve"})
    found = [to_passage(d, query=query, step=step) for d in documents]
    new = [p for p in found if p["hash"] not in known]
    dropped = 0
    if state.get("route") == "C":
        room = max(context.ircot_max_paragraphs - len(known), 0)
        dropped, new = max(len(new) - room, 0), new[:room]
    events = [
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
