"""The graph's state: what a caller sends (`InputState`) inside everything a run records (`State`).

Every decision a router reads is stored here first, so a finished run can be explained from its
state alone: the route and why, each passage with its evaluator score and origin, the CRAG
action, the strips kept, the IRCoT sentences, the critiqued candidates and the final answer
with its citations.
"""

import hashlib
from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from langgraph.managed import RemainingSteps

from models.judges import Route, SupportLevel

__all__ = [
    "CragAction",
    "Candidate",
    "Citation",
    "InputState",
    "Passage",
    "State",
    "Strip",
    "add_events",
    "add_passages",
    "content_hash",
]

CragAction = Literal["Correct", "Incorrect", "Ambiguous"]
"""CRAG's verdict on one retrieval as a whole."""


def content_hash(text: str) -> str:
    """Return a short stable hash of `text` (whitespace-normalised) for de-duplication."""
    normal = " ".join(text.split())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16]


class Passage(TypedDict):
    """One retrieved passage, local or from the web."""

    hash: str
    """Content hash; the de-duplication key."""
    text: str
    title: str
    source: str
    """File path for local passages, URL for web ones."""
    position: int | None
    """The chunk's position in its source file (local passages)."""
    url: str | None
    origin: Literal["local", "web"]
    query: str
    """The query that retrieved it."""
    step: int
    """The retrieval round (0 for the first, then one per IRCoT step or retry)."""
    score: float | None
    """The retrieval evaluator's score in [-1, 1]; None until graded."""


class Strip(TypedDict):
    """A knowledge strip: a piece of one passage, scored by the evaluator (CRAG refinement)."""

    hash: str
    passage_hash: str
    order: int
    """Position of the strip inside its passage, to rejoin strips in their original order."""
    text: str
    title: str
    source: str
    position: int | None
    url: str | None
    origin: Literal["local", "web"]
    score: float
    kept: bool
    """Selected as knowledge: above the filter threshold and among the top k."""


class Candidate(TypedDict):
    """One candidate answer and its Self-RAG critique."""

    text: str
    strip_hashes: list[str]
    """The strips the candidate was generated from (its evidence)."""
    logprob: float | None
    """Mean token log-probability, when the model reports it."""
    is_rel: float
    """IsRel in [0, 1]: mean evaluator relevance of its evidence."""
    is_sup: float
    """IsSup in [0, 1]: P(fully supported) + 0.5 * P(partially supported)."""
    support: SupportLevel
    """The most likely support level."""
    is_use: float
    """IsUse in [0, 1]: usefulness (1-5) rescaled."""
    score: float
    """The weighted ranking score."""


class Citation(TypedDict):
    """A strip cited by the final answer."""

    marker: int
    """The number used in the answer text, e.g. [1]."""
    title: str
    source: str
    position: int | None
    url: str | None
    origin: Literal["local", "web"]
    text: str


def add_passages(left: Sequence[Passage] | None, right: Sequence[Passage] | None) -> list[Passage]:
    """Merge passage lists, de-duplicating by content hash (a newer copy replaces an older one)."""
    merged: dict[str, Passage] = {p["hash"]: p for p in left or []}
    for passage in right or []:
        merged[passage["hash"]] = passage
    return list(merged.values())


def add_events(
    left: Sequence[dict[str, Any]] | None, right: Sequence[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """Append events in order.

    A subgraph (the IRCoT loop) hands back the parent's events followed by its own; only the
    part after that shared prefix is new.
    """
    old, new = list(left or []), list(right or [])
    if old and new[: len(old)] == old:
        new = new[len(old) :]
    return [*old, *new]


class InputState(TypedDict, total=False):
    """What a caller sends: a question, or chat messages whose last human turn is the question."""

    question: str
    """The user's question as typed (optional when `messages` ends with it)."""
    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation; the final answer is appended as an AI message."""


class State(InputState, total=False):
    """Everything one run records. Per-turn fields are reset when a new question arrives."""

    standalone_question: str
    """The question made self-contained using the conversation history."""
    route: Route
    """Adaptive-RAG route: A (no retrieval), B (one retrieval) or C (IRCoT)."""
    route_reason: str
    route_probabilities: dict[str, float]
    search_query: str
    """The query for the next retrieval or web search."""
    passages: Annotated[list[Passage], add_passages]
    """Every retrieved passage with its score and origin, de-duplicated by content hash."""
    crag_action: CragAction
    crag_scores: list[float]
    """The scores of the latest graded batch (what `crag_action` was decided on)."""
    web_searched: bool
    strips: list[Strip]
    """Every scored strip; `kept` marks the refined knowledge."""
    reasoning: list[str]
    """IRCoT's chain-of-thought sentences, one per step."""
    ircot_steps: int
    ircot_answer: str | None
    """The answer read from "So the answer is: X", when IRCoT reached one."""
    retrievals: int
    """Retrieval calls made this turn (local index)."""
    candidates: list[Candidate]
    retries: int
    """Reflection retries used."""
    retry_action: Literal["regenerate", "rewrite"] | None
    """Set by `reflect` when it asks for another attempt; read by its router."""
    rewrite_purpose: Literal["web", "retrieve"]
    """Why `rewrite_query` ran: to search the web, or to retrieve again after reflection."""
    answer: str
    """The final answer text, with its citation markers and any stop notice."""
    citations: list[Citation]
    stop_reason: str | None
    """Why the run stopped early (a cap), said in the answer too."""
    events: Annotated[list[dict[str, Any]], add_events]
    """The typed progress events of this turn, as streamed in `custom` mode."""
    remaining_steps: RemainingSteps
    """Super-steps left before the recursion limit (LangGraph fills it in)."""
