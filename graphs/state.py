"""The graph's state: what a caller sends (`InputState`) inside everything a run records (`State`).

Every decision a router reads is stored here first, so a finished run can be explained from its
state alone: the route and why, each passage with its evaluator score and origin, the CRAG
action, the strips kept, the IRCoT sentences, the critiqued candidates and the final answer
with its citations.
"""

import hashlib
from collections.abc import Sequence
from typing import Annotated, Literal, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from langgraph.managed import RemainingSteps

from graphs.events import Citation, CragAction, Event, Source
from models.judges import Route, SupportLevel

__all__ = [
    "CragAction",
    "Candidate",
    "Citation",
    "InputState",
    "IrcotEnd",
    "IrcotState",
    "Passage",
    "State",
    "Strip",
    "add_events",
    "add_reasons",
    "add_passages",
    "content_hash",
    "merge_scores",
    "score_key",
]


def content_hash(text: str) -> str:
    """Return a short stable hash of `text` (whitespace-normalised) for de-duplication."""
    normal = " ".join(text.split())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16]


class Passage(Source):
    """One retrieved passage, local or from the web, with where it comes from (`Source`)."""

    hash: str
    """Content hash; the de-duplication key."""
    text: str
    query: str
    """The query that retrieved it."""
    step: int
    """The retrieval round (0 for the first, then one per IRCoT step or retry)."""
    score: float | None
    """The retrieval evaluator's score in [-1, 1]; None until graded."""


class Strip(Source):
    """A knowledge strip: a piece of one passage, scored by the evaluator (CRAG refinement)."""

    hash: str
    passage_hash: str
    order: int
    """Position of the strip inside its passage, to rejoin strips in their original order."""
    text: str
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
    strip_support: NotRequired[dict[str, SupportLevel]]
    """The support level of each evidence strip alone (by strip hash), from the support judge's
    same pass; `finalize` cites the strips it names `full` or `partial`. Absent when the judge
    failed or judges the evidence only as a whole."""
    verified: NotRequired[float]
    """P(yes) the reader gave, asked in a chat of its own, that the passages state the answer
    (`Context.verify_below`); absent when not asked or when the model reports no
    probabilities."""
    score: float
    """The weighted ranking score."""
    message_id: str | None
    """The id of the message its tokens streamed under (the first candidate's)."""


def add_passages(left: Sequence[Passage] | None, right: Sequence[Passage] | None) -> list[Passage]:
    """Merge passage lists, de-duplicating by content hash (a newer copy replaces an older one)."""
    merged: dict[str, Passage] = {p["hash"]: p for p in left or []}
    for passage in right or []:
        merged[passage["hash"]] = passage
    return list(merged.values())


def add_events(left: Sequence[Event] | None, right: Sequence[Event] | None) -> list[Event]:
    """Append events in order (the graph records what each node emitted)."""
    return [*(left or []), *(right or [])]


def score_key(question: str, text: str) -> str:
    """Return the key of the evaluator's score of `text` for `question` (`window_scores`)."""
    return content_hash(f"{question}\n{text}")


def merge_scores(left: dict[str, float] | None, right: dict[str, float] | None) -> dict[str, float]:
    """Merge evaluator scores by key (a newer score replaces an older one)."""
    return {**(left or {}), **(right or {})}


def add_reasons(left: Sequence[str] | None, right: Sequence[str] | None) -> list[str]:
    """Append reasons, each once."""
    return list(dict.fromkeys([*(left or []), *(right or [])]))


IrcotEnd = Literal["answer", "no_fact", "no_progress", "cap"]
"""Why IRCoT's loop ended: an answer, no new sentence, nothing new found or said, the cap."""


class InputState(TypedDict, total=False):
    """What a caller sends: a question, or chat messages whose last human turn is the question."""

    question: str
    """The user's question as typed (optional when `messages` ends with it)."""
    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation; the final answer is appended as an AI message."""


class State(InputState, total=False):
    """Everything one run records. Per-turn fields are reset when a new question arrives."""

    asked_id: str | None
    """The id of the human message the latest turn took as its question: when a stopped run
    leaves it at the end of `messages`, it is not the next run's question."""
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
    crag_action: CragAction | None
    """CRAG's action on the latest graded retrieval (None on routes A and C)."""
    crag_scores: list[float]
    """The scores of the latest graded batch (what `crag_action` was decided on)."""
    window_scores: Annotated[dict[str, float], merge_scores]
    """Every evaluator score of this turn by `score_key`: grading scores passages and their
    sentence windows, and refinement reuses those scores for the same strips."""
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
    index_failed: bool
    """The local index failed this turn (retries spent): later retrievals try it once."""
    candidates: list[Candidate]
    ircot_done: IrcotEnd | None
    """Why IRCoT's loop ended (read by its router); None while it goes on."""
    ircot_done_reason: str | None
    """The same, in words."""
    retries: int
    """Reflection retries used."""
    retry: Literal["regenerate", "rewrite"] | None
    """Reflection's decision: another attempt of this kind, or None to finish."""
    answer: str
    """The final answer, bare: citations and notes are data beside it."""
    citations: list[Citation]
    notes: list[str]
    """What the user should know about the answer: a cap, a failed store, abstention."""
    abstained: bool
    """No kept evidence supported an answer, and the answer says so."""
    stop_reason: str | None
    """Why the run stopped early (a cap)."""
    degraded: Annotated[list[str], add_reasons]
    """Why the run is worse than it should be (a missing judge, a failed store or model)."""
    events: Annotated[list[Event], add_events]
    """The typed progress events of this turn, as streamed in `custom` mode."""
    remaining_steps: RemainingSteps
    """Super-steps left before the recursion limit (LangGraph fills it in)."""


class IrcotState(TypedDict, total=False):
    """What the IRCoT loop reads and writes: its own slice of `State`.

    The parent hands it these keys but no events nor reasons: the loop records its own, and
    the parent appends them (see `graphs.graph`).
    """

    standalone_question: str
    search_query: str
    passages: Annotated[list[Passage], add_passages]
    strips: list[Strip]
    window_scores: Annotated[dict[str, float], merge_scores]
    reasoning: list[str]
    ircot_steps: int
    ircot_answer: str | None
    ircot_done: IrcotEnd | None
    ircot_done_reason: str | None
    retrievals: int
    index_failed: bool
    events: Annotated[list[Event], add_events]
    degraded: Annotated[list[str], add_reasons]
