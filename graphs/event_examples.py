"""One sample of every event type, for renderer tests and for trying a client."""

from graphs.events import (
    AnswerEvent,
    CandidateView,
    CapReachedEvent,
    Citation,
    CragActionEvent,
    CritiqueEvent,
    Event,
    FallbackEvent,
    GradesEvent,
    IrcotStepEvent,
    QuestionEvent,
    RetrievalEvent,
    RetryEvent,
    RewriteEvent,
    RouteEvent,
    ScoredRef,
    Source,
    StripsEvent,
    StripView,
    WebResultsEvent,
    source_ref,
)

__all__ = ["EXAMPLE_EVENTS"]

_SOURCE = Source(
    title="Glassmere Lighthouse", source="notes/harbour.md", position=2, url=None, origin="local"
)
_REF = source_ref(_SOURCE, "3f2a9c1d0b7e6a54")
_CITATION = Citation(
    **_SOURCE,
    marker=1,
    label=_REF["label"],
    passage_hash=_REF["hash"],
    strip_hash="9b8c7d6e5f4a3b21",
    text="The Glassmere Lighthouse was completed in 1887.",
)

EXAMPLE_EVENTS: dict[str, Event] = {
    "question": QuestionEvent(
        type="question",
        node="condense_question",
        question="When was it completed?",
        standalone="When was the Glassmere Lighthouse completed?",
        condensed="model",
        referent="it = the Glassmere Lighthouse",
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
            StripView(
                hash=_CITATION["strip_hash"],
                passage_hash=_REF["hash"],
                label=_REF["label"],
                score=0.9,
                text=_CITATION["text"],
                kept=True,
            ),
            StripView(
                hash="1a2b3c4d5e6f7a8b",
                passage_hash=_REF["hash"],
                label=_REF["label"],
                score=-0.8,
                text="It is white.",
                kept=False,
            ),
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
