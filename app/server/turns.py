"""Closing turns that a stopped, failed or killed run left open.

A run stopped after its question was stored leaves a human message with no answer at the end of
the thread. An AI message saying it was stopped closes that turn, so the thread reads as whole
turns, a restarted server shows no half-turn, and the next question is never mistaken for the
stopped one (`nodes.condense_question` guards the same case from inside the graph).
"""

import logging
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from nodes.condense_question import STOPPED_TURN

__all__ = ["close_turn"]

logger = logging.getLogger(__name__)


def close_turn(graph: Any, thread_id: str) -> bool:
    """Close the thread's open turn, if it has one; return whether it had (blocking)."""
    config = {"configurable": {"thread_id": thread_id}}
    messages = graph.get_state(config).values.get("messages") or []
    if not (messages and isinstance(messages[-1], HumanMessage)):
        return False
    closing = AIMessage(STOPPED_TURN, response_metadata={"abstained": True, "stopped": True})
    graph.update_state(config, {"messages": [closing]}, as_node="finalize")
    logger.info("closed the stopped turn on %s", thread_id)
    return True
