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
    "ScoredRef",
    "Source",
    "SourceRef",
    "StripsEvent",
    "WebResultsEvent",
    "cap_reached",
    "emit",
    "fallback",
    "source_label",
    "source_ref",
]


CragAction = Literal["Correct", "Incorrect", "Ambiguous"]
"""CRAG's verdict on one retrieval as a whole."""

Condensed = Literal["first turn", "model", "resolved", "template", "kept", "off"]
"""How the standalone question was made: the turn itself (a first turn, a follow-up that
already stands alone, or condensing off), the rewriter model's checked rewrite, the turn with
its pronouns resolved by rule, or the safe template (the turn with the previous question and a
short answer as context)."""


class Source(TypedDict):
    """Where a text comes from: the one provenance shape of passages, strips and citations."""

    title: str
    source: str
    """File path (as ingested) for local texts, URL for web ones."""
    position: int | None
    """The chunk's position in its source file (local texts)."""
    url: str | None
    origin: Literal["local", "web"]


def source_label(item: Source) -> str:
    """Return where `item` comes from in one string: its URL, or `source#position`."""
    if item["origin"] == "web":
        return item["url"] or item["source"]
    position = item["position"]
    return item["source"] if position is None else f"{item['source']}#{position}"


class Citation(Source):
    """A strip cited by the final answer (clients number and render the markers).

    Clients find the cited passage among the run's strips by `passage_hash`, and the cited
    strip by `strip_hash`: never by comparing labels or text.
    """

    marker: int
    """The citation's number, e.g. 1 for [1]."""
    label: str
    """`source_label` of the strip, for display."""
    passage_hash: str
    strip_hash: str
    text: str


class SourceRef(Source):
    """A passage: its hash, where it comes from and its label."""

    hash: str
    label: str


class ScoredRef(SourceRef):
    """A passage and its evaluator score."""

    score: float


class StripView(TypedDict):
    """One scored strip, kept or dropped."""

    hash: str
    passage_hash: str
    """The strip's passage: a citation's `passage_hash` finds all of its strips."""
    label: str
    """`source_label` of the strip's passage."""
    score: float
    text: str
    """The strip's text, clipped for display."""
    kept: bool


def source_ref(item: Source, hash: str) -> SourceRef:
    """Return the reference events carry for a passage (its provenance, hash and label)."""
    return SourceRef(
        hash=hash,
        title=item["title"],
        source=item["source"],
        position=item["position"],
        url=item["url"],
        origin=item["origin"],
        label=source_label(item),
    )


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


def fallback(
    node: str, judge: str, problem: str, *, used: str, degraded: str | None = None
) -> FallbackEvent:
    """Return the event of a judge, store or model that failed and the default used instead.

    Args:
        node: The node that asked.
        judge: The role that failed, e.g. "evaluator" or "retriever".
        problem: What went wrong.
        used: What the node used instead.
        degraded: Why the run is worse for it, when it is (the graph adds it to `degraded`).
    """
    return FallbackEvent(
        type="fallback", node=node, judge=judge, problem=problem, used=used, degraded=degraded
    )


def cap_reached(node: str, cap: str, limit: int, reason: str) -> CapReachedEvent:
    """Return the event of a loop cap (a `Context` field named `cap`) that stopped something."""
    return CapReachedEvent(type="cap_reached", node=node, cap=cap, limit=limit, reason=reason)


def emit(runtime: Runtime[Any] | None, payload: Event) -> Event:
    """Stream `payload` in `custom` mode (the graph also records it in `State.events`)."""
    if runtime is not None and runtime.stream_writer is not None:
        runtime.stream_writer(payload)
    return payload
