"""Node `classify_complexity`: pick Adaptive-RAG's route (A, B or C), or take a forced one."""

from typing import Any

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import event
from graphs.state import State
from models.judges import Route, RouteDecision
from nodes._common import judge_or_reason, with_retries

__all__ = ["FALLBACK_ROUTE", "classify_complexity"]

FALLBACK_ROUTE: Route = "B"
"""The safest route when the classifier fails: one retrieval, checked by CRAG."""


def _valid(decisions: object) -> bool:
    return (
        isinstance(decisions, list)
        and len(decisions) == 1
        and isinstance(decisions[0], RouteDecision)
        and decisions[0].route in ("A", "B", "C")
    )


def classify_complexity(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Store the route, its probabilities and why, then stream them."""
    context = runtime.context
    events = []
    forced = context.route
    if forced == "A" or forced == "B" or forced == "C":
        decision = RouteDecision(forced, {forced: 1.0}, "forced by the caller")
    else:
        classifier, missing = judge_or_reason(lambda: deps.classifier_for(context))
        question = state["standalone_question"]
        decisions, problem = (
            with_retries(
                lambda: classifier.classify([question]),
                attempts=context.judge_attempts,
                check=_valid,
            )
            if classifier is not None
            else (None, missing)
        )
        if decisions is None:
            events.append(
                event(
                    runtime,
                    "fallback",
                    "classify_complexity",
                    judge="classifier",
                    problem=problem,
                    used=FALLBACK_ROUTE,
                    **({"degraded": missing} if missing else {}),
                )
            )
            decision = RouteDecision(FALLBACK_ROUTE, {}, "classifier failed; safe default")
        else:
            decision = decisions[0]
    probabilities = {k: round(float(v), 4) for k, v in decision.probabilities.items()}
    events.append(
        event(
            runtime,
            "route",
            "classify_complexity",
            route=decision.route,
            probabilities=probabilities,
            reason=decision.reason,
        )
    )
    return {
        "route": decision.route,
        "route_reason": decision.reason,
        "route_probabilities": probabilities,
        "events": events,
    }
