"""Node `classify_complexity`: pick Adaptive-RAG's route (A, B or C), or take a forced one."""

from typing import Any

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import RouteEvent, emit
from graphs.state import State
from models.judges import Route, RouteDecision
from nodes._common import ask_judge

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
    question, forced = state["standalone_question"], context.route
    if forced == "A" or forced == "B" or forced == "C":
        decision = RouteDecision(forced, {forced: 1.0}, "forced by the caller")
        events, degraded = [], []
    else:
        verdict = ask_judge(
            runtime,
            node="classify_complexity",
            judge="classifier",
            get=lambda: deps.classifier_for(context),
            call=lambda classifier: classifier.classify([question]),
            check=_valid,
            used=f"route {FALLBACK_ROUTE}",
        )
        fallback = RouteDecision(FALLBACK_ROUTE, {}, "classifier failed; safe default")
        decision = verdict.value[0] if verdict.value else fallback
        events, degraded = list(verdict.events), verdict.degraded
    probabilities = {str(k): round(float(v), 4) for k, v in decision.probabilities.items()}
    chosen = RouteEvent(
        type="route",
        node="classify_complexity",
        route=decision.route,
        probabilities=probabilities,
        reason=decision.reason,
    )
    return {
        "route": decision.route,
        "route_reason": decision.reason,
        "route_probabilities": probabilities,
        "events": [*events, emit(runtime, chosen)],
        "degraded": degraded,
    }
