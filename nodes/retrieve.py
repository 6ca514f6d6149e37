"""Node `retrieve`: fetch passages from the local index for the current search query."""

from typing import Literal, NotRequired, TypedDict

from langchain_core.documents import Document
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import RetrievalEvent, cap_reached, emit, fallback, source_ref
from graphs.state import Passage, State, content_hash
from nodes._degrade import retry_or_degrade

__all__ = ["RetrieveUpdate", "retrieve", "to_passage"]

_INDEX = "the local index"
_NONE = "no local passages"


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


class RetrieveUpdate(TypedDict):
    """What `retrieve` writes."""

    passages: list[Passage]
    retrievals: int
    index_failed: NotRequired[bool]


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
        retry = not state.get("index_failed")
        return [], retry_or_degrade(runtime, error, _INDEX, retry=retry)


def retrieve(
    state: State, runtime: Runtime[Context], deps: Deps, *, paragraph_cap: bool = False
) -> RetrieveUpdate:
    """Retrieve top-k new passages; inside IRCoT (`paragraph_cap`) stay within its cap."""
    limit = runtime.context.ircot_max_paragraphs
    query = state.get("search_query") or state["standalone_question"]
    step = state.get("retrievals", 0)
    known = {p["hash"] for p in state.get("passages") or []}
    documents, failure = _fetch(state, query, runtime, deps)
    if failure:
        emit(runtime, fallback("retrieve", "retriever", failure, used=_NONE, degraded=failure))
    found = [to_passage(d, query=query, step=step) for d in documents]
    new = [p for p in found if p["hash"] not in known]
    room = max(limit - len(known), 0) if paragraph_cap else len(new)
    dropped, new = max(len(new) - room, 0), new[:room]
    shown = RetrievalEvent(
        type="retrieval",
        node="retrieve",
        query=query,
        step=step,
        found=len(found),
        new=len(new),
        passages=[source_ref(p, p["hash"]) for p in new],
    )
    emit(runtime, shown)
    if dropped:
        why = f"{dropped} passage(s) over IRCoT's paragraph cap were left out"
        emit(runtime, cap_reached("retrieve", "ircot_max_paragraphs", limit, why))
    update = RetrieveUpdate(passages=new, retrievals=step + 1)
    if failure:
        update["index_failed"] = True
    return update
