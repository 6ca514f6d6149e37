"""Routers: pure functions of the state that read a stored decision and name the next node."""

from typing import Literal

from graphs.state import State

__all__ = [
    "route_after_refine",
    "route_after_reflect",
    "route_crag",
    "route_ircot",
    "route_question",
]


def route_question(state: State) -> Literal["generate", "retrieve", "ircot"]:
    """Send route A to the generator, B to one retrieval, C to the IRCoT loop."""
    match state.get("route"):
        case "A":
            return "generate"
        case "B":
            return "retrieve"
        case "C":
            return "ircot"
    raise ValueError(f"unknown route {state.get('route')!r}")


def route_crag(state: State) -> Literal["refine_strips", "rewrite_query"]:
    """Refine on Correct or Ambiguous; on Incorrect, rewrite for the web unless searched already."""
    match state.get("crag_action"):
        case "Correct" | "Ambiguous":
            return "refine_strips"
        case "Incorrect":
            return "refine_strips" if state.get("web_searched") else "rewrite_query"
    raise ValueError(f"unknown CRAG action {state.get('crag_action')!r}")


def route_after_refine(state: State) -> Literal["rewrite_query", "generate"]:
    """Ambiguous adds web knowledge to the refined local strips; otherwise generate."""
    if state.get("crag_action") == "Ambiguous" and not state.get("web_searched"):
        return "rewrite_query"
    return "generate"


def route_ircot(state: State) -> Literal["retrieve", "__end__"]:
    """Leave the IRCoT loop once `ircot_step` said why (an answer, no progress, the cap)."""
    return "__end__" if state.get("ircot_done") else "retrieve"


def route_after_reflect(state: State) -> Literal["generate", "rewrite_for_retrieval", "finalize"]:
    """Retry as `reflect` decided (within its cap), else finish."""
    match state.get("retry"):
        case "regenerate":
            return "generate"
        case "rewrite":
            return "rewrite_for_retrieval"
        case None:
            return "finalize"
    raise ValueError(f"unknown retry {state.get('retry')!r}")
