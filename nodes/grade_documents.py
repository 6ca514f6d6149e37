"""Node `grade_documents`: score new local passages with the retrieval evaluator; decide CRAG.

Web passages are not graded here (by origin): refinement scores them strip by strip.
"""

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import CragAction, CragActionEvent, GradesEvent, ScoredRef, emit
from graphs.state import Passage, State
from nodes._common import score_texts

__all__ = ["crag_action", "decide_crag", "grade_passages"]


def crag_action(scores: Sequence[float], *, upper: float, lower: float) -> CragAction:
    """Return CRAG's action for one retrieval.

    Correct if any passage scores at least `upper`; Incorrect if every passage scores below
    `lower` (so also when nothing was retrieved); Ambiguous otherwise.
    """
    if any(score >= upper for score in scores):
        return "Correct"
    if all(score < lower for score in scores):
        return "Incorrect"
    return "Ambiguous"


def _grade(
    state: State, runtime: Runtime[Context], deps: Deps
) -> tuple[dict[str, Any], list[float] | None]:
    """Score the ungraded local passages; return the update and the scores (None: failed)."""
    batch = [
        p for p in state.get("passages") or [] if p["origin"] == "local" and p["score"] is None
    ]
    if not batch:
        return {}, []
    question = state["standalone_question"]
    texts = [p["text"] for p in batch]
    verdict = score_texts(
        runtime, deps, node="grade_documents", question=question, texts=texts, used="Ambiguous"
    )
    scores = verdict.value or [0.0] * len(batch)
    graded: list[Passage] = [
        {**p, "score": round(s, 4)} for p, s in zip(batch, scores, strict=True)
    ]
    refs = [
        ScoredRef(
            title=p["title"], source=p["source"], position=p["position"], score=p["score"] or 0.0
        )
        for p in graded
    ]
    shown = emit(runtime, GradesEvent(type="grades", node="grade_documents", scores=refs))
    update = {"passages": graded, "events": [*verdict.events, shown], "degraded": verdict.degraded}
    return update, verdict.value


def grade_passages(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Score the local passages not graded yet (IRCoT's grading: no CRAG action)."""
    return _grade(state, runtime, deps)[0]


def decide_crag(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Grade the new passages, then store CRAG's action for this retrieval."""
    update, scores = _grade(state, runtime, deps)
    thresholds = runtime.context.crag_thresholds()
    action: CragAction = (
        "Ambiguous"
        if scores is None
        else crag_action(scores, upper=thresholds.upper, lower=thresholds.lower)
    )
    scores = scores or []
    shown = CragActionEvent(
        type="crag_action",
        node="grade_documents",
        action=action,
        graded=len(scores),
        above_upper=sum(s >= thresholds.upper for s in scores),
        best=round(max(scores), 4) if scores else None,
        upper=thresholds.upper,
        lower=thresholds.lower,
    )
    events = [*update.get("events", []), emit(runtime, shown)]
    return {**update, "crag_scores": scores, "crag_action": action, "events": events}
