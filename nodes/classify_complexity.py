"""Node `classify_complexity`: pick Adaptive-RAG's route (A, B or C), or take a forced one."""

from typing import TypedDict

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import RouteEvent, emit
from graphs.state import State
from models.judges import Route, RouteDecision
from nodes._common import ask_judge

__all__ = ["FALLBACK_ROUTE", "RouteUpdate", "classify_complexity"]

FALLBACK_ROUTE: Route = "B"
"""The safest route when the classifier fails: one retrieval, checked by CRAG."""


def _valid(decisions: object) -> bool:
    return (
        isinstance(decisions, list)
        and len(decisions) == 1
        and isinstance(decisions[0], RouteDecision)
        and decisions[0].route in ("A", "B", "C")
    )


class RouteUpdate(TypedDict):
    """What `classify_complexity` writes."""

    route: Route
    route_reason: str
    route_probabilities: dict[str, float]


def _decide(question: str, runtime: Runtime[Context], deps: Deps) -> RouteDecision:
    """Return the forced route, the classifier's, or the safe default when it fails."""
    forced = runtime.context.route
    if forced == "A" or forced == "B" or forced == "C":
        return RouteDecision(forced, {forced: 1.0}, "forced by the caller")
    decisions = ask_judge(
        runtime,
        node="classify_complexity",
        judge="classifier",
        get=lambda: deps.classifier_for(runtime.context),
        call=lambda classifier: classifier.classify([question]),
        check=_valid,
        used=f"route {FALLBACK_ROUTE}",
    )
    fallback = RouteDecision(FALLBACK_ROUTE, {}, "classifier failed; safe default")
    return decisions[0] if decisions else fallback


def classify_complexity(state: State, runtime: Runtime[Context], deps: Deps) -> RouteUpdate:
    """Store the route, its probabilities and why, then stream them."""
    decision = _decide(state["standalone_question"], runtime, deps)
    probabilities = {str(k): round(float(v), 4) for k, v in decision.probabilities.items()}
    shown = RouteEvent(
        type="route",
        node="classify_complexity",
        route=decision.route,
        probabilities=probabilities,
        reason=decision.reason,
    )
    emit(runtime, shown)
    return RouteUpdate(
        route=decision.route, route_reason=decision.reason, route_probabilities=probabilities
    )
