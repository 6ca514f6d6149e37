"""Node `grade_documents`: score new passages with the retrieval evaluator; decide CRAG's action."""

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import event
from graphs.state import CragAction, Passage, State
from nodes._common import judge_or_reason, valid_scores, with_retries

__all__ = ["crag_action", "grade_documents"]


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


def grade_documents(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Score the passages not graded yet and store the CRAG action they imply."""
    context = runtime.context
    thresholds = context.crag_thresholds()
    batch = [p for p in state.get("passages") or [] if p["score"] is None]
    question = state["standalone_question"]
    evaluator, missing = (
        judge_or_reason(lambda: deps.evaluator_for(context)) if batch else (None, None)
    )
    events = []
    scores, problem = (
        with_retries(
            lambda: [float(s) for s in evaluator.score(question, [p["text"] for p in batch])],
            attempts=context.judge_attempts,
            check=lambda s: valid_scores(s, len(batch)),
        )
        if evaluator is not None
        else (None, missing)
        if missing
        else ([], None)
    )
    if scores is None:
        events.append(
            event(
                runtime,
                "fallback",
                "grade_documents",
                judge="evaluator",
                problem=problem,
                used="Ambiguous",
                **({"degraded": missing} if missing else {}),
            )
        )
        action: CragAction = "Ambiguous"
        scores = [0.0] * len(batch)
    else:
        action = crag_action(scores, upper=thresholds.upper, lower=thresholds.lower)
    graded: list[Passage] = [
        {**p, "score": round(s, 4)} for p, s in zip(batch, scores, strict=True)
    ]
    events.append(
        event(
            runtime,
            "grades",
            "grade_documents",
            scores=[
                {
                    "title": p["title"],
                    "source": p["source"],
                    "position": p["position"],
                    "score": p["score"],
                }
                for p in graded
            ],
        )
    )
    above = sum(s >= thresholds.upper for s in scores)
    events.append(
        event(
            runtime,
            "crag_action",
            "grade_documents",
            action=action,
            graded=len(batch),
            above_upper=above,
            upper=thresholds.upper,
            lower=thresholds.lower,
        )
    )
    return {"passages": graded, "crag_action": action, "crag_scores": scores, "events": events}
