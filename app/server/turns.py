"""Closing turns that a stopped, failed or killed run left open.

A run stopped after its question was stored leaves a human message with no answer at the end of
the thread. An AI message saying it was stopped closes that turn, so the thread reads as whole
turns, a restarted server shows no half-turn, and the next question is never mistaken for the
stopped one (`nodes.condense_question` guards the same case from inside the graph).

A run stopped sooner, before its first step was stored, leaves only its input: the `question`
channel, with `condense_question` still to run. Its question is then stored with the closing
message, so the thread keeps what the user asked instead of losing it to the next run's input.
"""

import logging
import uuid
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from nodes.condense_question import STOPPED_TURN

__all__ = ["close_turn"]

logger = logging.getLogger(__name__)

_FIRST_STEP = "condense_question"


def close_turn(graph: Any, thread_id: str) -> bool:
    """Close the thread's open turn, if it has one; return whether it had (blocking)."""
    config = {"configurable": {"thread_id": thread_id}}
    snapshot = graph.get_state(config)
    messages = snapshot.values.get("messages") or []
    asked = snapshot.values.get("question")
    if messages and isinstance(messages[-1], HumanMessage):
        opened: list[HumanMessage] = []
    elif _stopped_before_stored(snapshot) and isinstance(asked, str) and asked.strip():
        opened = [HumanMessage(asked, id=str(uuid.uuid4()))]
    else:
        return False
    closing = AIMessage(STOPPED_TURN, response_metadata={"abstained": True, "stopped": True})
    graph.update_state(config, {"messages": [*opened, closing]}, as_node="finalize")
    logger.info("closed the stopped turn on %s", thread_id)
    return True


def _stopped_before_stored(snapshot: Any) -> bool:
    """Tell whether the last run stopped before its first step was stored.

    Not one that failed in it: a question the graph refused is not a turn of the thread.
    """
    return _FIRST_STEP in snapshot.next and not any(task.error for task in snapshot.tasks)
