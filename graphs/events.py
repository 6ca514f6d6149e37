"""The event contract: one typed payload per event type, streamed in `custom` mode.

Nodes build events with these TypedDicts and `emit` them; every consumer (the CLI, the chat
page, the notebook, the benchmark) reads the same shapes, and `EXAMPLE_EVENTS` holds one
sample of each so that a renderer can be tested against every type. Events explain a run;
nothing decides by reading them back (decisions live in `graphs.state.State`).
"""

from typing import Any, Literal, TypedDict

from langgraph.runtime import Runtime

from models.judges import Route, SupportLevel

__all__ = [
    "EVENT_TYPES",
    "Citation",
    "CragAction",
    "EXAMPLE_EVENTS",
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
    condensed: Literal["first turn", "model", "template", "off"]
    """How a follow-up became standalone: the model's rewrite, or the safe template."""


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


_REF = SourceRef(title="Glassmere Lighthouse", source="notes/harbour.md", position=2)
_CITATION = Citation(
    marker=1,
    title="Glassmere Lighthouse",
    source="notes/harbour.md",
    position=2,
    url=None,
    origin="local",
    text="The Glassmere Lighthouse was completed in 1887.",
)

EXAMPLE_EVENTS: dict[str, Event] = {
    "question": QuestionEvent(
        type="question",
        node="condense_question",
        question="When was it completed?",
        standalone="When was the Glassmere Lighthouse completed?",
        condensed="model",
    ),
    "route": RouteEvent(
        type="route",
        node="classify_complexity",
        route="B",
        probabilities={"A": 0.1, "B": 0.8, "C": 0.1},
        reason="trained classifier: B (p=0.80)",
    ),
    "retrieval": RetrievalEvent(
        type="retrieval",
        node="retrieve",
        query="When was the Glassmere Lighthouse completed?",
        step=0,
        found=4,
        new=4,
        passages=[_REF],
    ),
    "grades": GradesEvent(
        type="grades", node="grade_documents", scores=[ScoredRef(**_REF, score=0.91)]
    ),
    "crag_action": CragActionEvent(
        type="crag_action",
        node="grade_documents",
        action="Correct",
        graded=4,
        above_upper=1,
        best=0.91,
        upper=0.5,
        lower=-0.5,
    ),
    "strips": StripsEvent(
        type="strips",
        node="refine_strips",
        kept=1,
        dropped=1,
        mode="sentences",
        strips=[
            StripView(label="notes/harbour.md#2", score=0.9, text=_CITATION["text"], kept=True),
            StripView(label="notes/harbour.md#2", score=-0.8, text="It is white.", kept=False),
        ],
    ),
    "rewrite": RewriteEvent(
        type="rewrite",
        node="rewrite_query",
        query="Glassmere Lighthouse, completed",
        purpose="web",
        note=None,
    ),
    "web_results": WebResultsEvent(
        type="web_results",
        node="web_search",
        query="Glassmere Lighthouse, completed",
        backend="local",
        degraded=None,
        results=[{"title": "Glassmere", "url": "https://example.org/glassmere"}],
    ),
    "ircot_step": IrcotStepEvent(
        type="ircot_step",
        node="ircot_step",
        step=1,
        sentence="The lighthouse was completed in 1887.",
        answer=None,
    ),
    "critique": CritiqueEvent(
        type="critique",
        node="reflect",
        weights=[1.0, 1.0, 0.5],
        candidates=[
            CandidateView(
                text="1887",
                score=2.4,
                is_rel=0.9,
                is_sup=1.0,
                support="full",
                is_use=0.75,
                logprob=-0.2,
            )
        ],
    ),
    "retry": RetryEvent(
        type="retry", node="reflect", attempt=1, action="regenerate", why="best is unsupported"
    ),
    "cap_reached": CapReachedEvent(
        type="cap_reached",
        node="ircot_step",
        cap="ircot_max_steps",
        limit=5,
        reason="IRCoT reached its cap of 5 steps; answered from what it found",
    ),
    "fallback": FallbackEvent(
        type="fallback",
        node="grade_documents",
        judge="evaluator",
        problem="ValueError: junk",
        used="Ambiguous",
        degraded=None,
    ),
    "answer": AnswerEvent(
        type="answer",
        node="finalize",
        answer="The Glassmere Lighthouse was completed in 1887.",
        route="B",
        citations=[_CITATION],
        notes=[],
        abstained=False,
        revised=False,
    ),
}
"""One sample of every event type, for renderer tests and the demo."""
