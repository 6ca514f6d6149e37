"""The event contract: one typed payload per event type, streamed in `custom` mode.

Nodes build events with these TypedDicts and `emit` them; every consumer (the CLI, the chat
page, the notebook, the benchmark) reads the same shapes, and `graphs.event_examples` holds
one sample of each so that a renderer can be tested against every type. Events explain a run;
nothing decides by reading them back (decisions live in `graphs.state.State`).
"""

from typing import Any, Literal, NotRequired, TypedDict

from langgraph.runtime import Runtime

from models.judges import Route, SupportLevel

__all__ = [
    "EVENT_TYPES",
    "Citation",
    "Condensed",
    "CragAction",
    "AnswerEvent",
    "CapReachedEvent",
    "CragActionEvent",
    "CritiqueEvent",
    "Event",
    "FallbackEvent",
    "GradesEvent",
    "IrcotStepEvent",
    "QuestionEvent",
    "RetrievalEvent",
    "RetryEvent",
    "RewriteEvent",
    "RouteEvent",
    "StripsEvent",
    "WebResultsEvent",
    "emit",
]


CragAction = Literal["Correct", "Incorrect", "Ambiguous"]
"""CRAG's verdict on one retrieval as a whole."""

Condensed = Literal["first turn", "model", "resolved", "template", "kept", "off"]
"""How the standalone question was made: the turn itself (a first turn, a follow-up that
already stands alone, or condensing off), the rewriter model's checked rewrite, the turn with
its pronouns resolved by rule, or the safe template (the turn with the previous question and a
short answer as context)."""


class Citation(TypedDict):
    """A strip cited by the final answer (clients number and render the markers)."""

    marker: int
    """The citation's number, e.g. 1 for [1]."""
    title: str
    source: str
    """File path (as ingested) for local strips, URL for web ones."""
    position: int | None
    url: str | None
    origin: Literal["local", "web"]
    text: str


class SourceRef(TypedDict):
    """Where a passage comes from: its title, file (or URL) and chunk position."""

    title: str
    source: str
    position: int | None


class ScoredRef(SourceRef):
    """A passage and its evaluator score."""

    score: float


class StripView(TypedDict):
    """One scored strip, kept or dropped."""

    label: str
    """`source#position` for local strips, the URL for web ones."""
    score: float
    text: str
    kept: bool


class CandidateView(TypedDict):
    """One critiqued candidate answer."""

    text: str
    score: float
    is_rel: float
    is_sup: float
    support: SupportLevel
    is_use: float
    logprob: float | None


class QuestionEvent(TypedDict):
    """The question this turn answers, as typed and as made standalone."""

    type: Literal["question"]
    node: str
    question: str
    standalone: str
    condensed: Condensed
    """How a follow-up became standalone: the model, the pronoun rules, or the template."""
    referent: NotRequired[str]
    """What the follow-up's reference was read as, in a few words ("she = Marta Kello")."""


class RouteEvent(TypedDict):
    """Adaptive-RAG's route and why."""

    type: Literal["route"]
    node: str
    route: Route
    probabilities: dict[str, float]
    reason: str


class RetrievalEvent(TypedDict):
    """One local retrieval."""

    type: Literal["retrieval"]
    node: str
    query: str
    step: int
    found: int
    new: int
    passages: list[SourceRef]


class GradesEvent(TypedDict):
    """The retrieval evaluator's score for each newly retrieved passage."""

    type: Literal["grades"]
    node: str
    scores: list[ScoredRef]


class CragActionEvent(TypedDict):
    """CRAG's action for one retrieval, with the best score against the thresholds."""

    type: Literal["crag_action"]
    node: str
    action: CragAction
    graded: int
    above_upper: int
    best: float | None
    upper: float
    lower: float


class StripsEvent(TypedDict):
    """Knowledge refinement: every strip scored so far, the kept ones marked."""

    type: Literal["strips"]
    node: str
    kept: int
    dropped: int
    mode: str
    strips: list[StripView]


class RewriteEvent(TypedDict):
    """The keyword query written for the web, or for a retrieval retry."""

    type: Literal["rewrite"]
    node: str
    query: str
    purpose: Literal["web", "retrieve"]
    note: str | None
    """Said in plain words when the model's keywords were not used."""


class WebResultsEvent(TypedDict):
    """One web search."""

    type: Literal["web_results"]
    node: str
    query: str
    backend: str
    degraded: str | None
    results: list[dict[str, str | None]]
    """Each result's title and url."""


class IrcotStepEvent(TypedDict):
    """One IRCoT reasoning sentence."""

    type: Literal["ircot_step"]
    node: str
    step: int
    sentence: str
    answer: str | None
    dropped: NotRequired[bool]
    """The sentence claimed what no kept strip says: dropped, the next query is the question."""


class CritiqueEvent(TypedDict):
    """Self-RAG's critique of the candidates, best first."""

    type: Literal["critique"]
    node: str
    weights: list[float]
    candidates: list[CandidateView]


class RetryEvent(TypedDict):
    """Reflection asks for another attempt."""

    type: Literal["retry"]
    node: str
    attempt: int
    action: Literal["regenerate", "rewrite"]
    why: str


class CapReachedEvent(TypedDict):
    """A loop cap stopped something early."""

    type: Literal["cap_reached"]
    node: str
    cap: str
    limit: int
    reason: str


class FallbackEvent(TypedDict):
    """A judge, store or model failed or returned junk; the safe default was used."""

    type: Literal["fallback"]
    node: str
    judge: str
    problem: str
    used: str
    degraded: str | None
    """Set when the run is worse for it (a missing judge, a failed store): told in the answer."""


class AnswerEvent(TypedDict):
    """The final answer (bare text), its citations and notes, as data."""

    type: Literal["answer"]
    node: str
    answer: str
    route: Route | None
    citations: list[Citation]
    notes: list[str]
    abstained: bool
    """The documents did not support an answer, and the answer says so."""
    revised: bool
    """The answer differs from the candidate streamed live (reflection chose another)."""


Event = (
    QuestionEvent
    | RouteEvent
    | RetrievalEvent
    | GradesEvent
    | CragActionEvent
    | StripsEvent
    | RewriteEvent
    | WebResultsEvent
    | IrcotStepEvent
    | CritiqueEvent
    | RetryEvent
    | CapReachedEvent
    | FallbackEvent
    | AnswerEvent
)
"""Every event a run can stream."""

EVENT_TYPES: tuple[str, ...] = (
    "question",
    "route",
    "retrieval",
    "grades",
    "crag_action",
    "strips",
    "rewrite",
    "web_results",
    "ircot_step",
    "critique",
    "retry",
    "cap_reached",
    "fallback",
    "answer",
)


def emit(runtime: Runtime[Any] | None, payload: Event) -> Event:
    """Stream `payload` in `custom` mode and return it (for `State.events`)."""
    if runtime is not None and runtime.stream_writer is not None:
        runtime.stream_writer(payload)
    return payload
