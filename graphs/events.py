"""Typed progress events: streamed in `custom` mode and recorded in `State.events`."""

from typing import Any, Literal

from langgraph.runtime import Runtime

__all__ = ["ANSWER_REPLAY_TAG", "EVENT_TYPES", "EventType", "event"]

ANSWER_REPLAY_TAG = "acrag:answer-replay"
"""Tag of the run that streams the chosen answer, so call counters can tell it from a model."""

EventType = Literal[
    "question",  # the (standalone) question the run answers
    "route",  # classifier verdict: route, probabilities, reason
    "retrieval",  # one local retrieval: query, passages found
    "grades",  # evaluator score per passage
    "crag_action",  # Correct / Incorrect / Ambiguous and the thresholds
    "strips",  # strips kept and dropped
    "rewrite",  # the keyword query written for web search or a retry
    "web_results",  # web search backend and results
    "ircot_step",  # one reasoning sentence and whether it holds the answer
    "critique",  # candidate answers with IsRel / IsSup / IsUse and score
    "retry",  # reflection asks for another attempt
    "cap_reached",  # a loop cap stopped the run early
    "fallback",  # a judge or model returned junk; the safe default was used
    "answer",  # the final answer and its citations
]
EVENT_TYPES: tuple[str, ...] = EventType.__args__  # type: ignore[attr-defined]


def event(runtime: Runtime[Any] | None, type_: EventType, node: str, **data: Any) -> dict[str, Any]:
    """Stream an event in `custom` mode and return it for `State.events`."""
    payload: dict[str, Any] = {"type": type_, "node": node, **data}
    if runtime is not None and runtime.stream_writer is not None:
        runtime.stream_writer(payload)
    return payload
