"""Node `condense_question`: validate the question, start a fresh turn, resolve follow-ups.

A follow-up ("Where was she born?") is made standalone by the `FollowUpRewriter` that
`Context.follow_ups` chooses (`models.followup`): by default the rewriter model, checked
against the conversation, with the pronoun rules and then a template as fallbacks. The
question event says how, and what the reference was read as ("she = Marta Kello").
"""

import uuid
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import Condensed, QuestionEvent, emit, fallback
from graphs.state import State
from graphs.validation import InvalidQuestionError, validate_question
from models.followup import Exchange, Rewrite

__all__ = ["STOPPED_TURN", "condense_question", "exchanges", "fresh_turn"]


def _asked(state: State) -> tuple[object, list[AnyMessage]]:
    """Return the question and the earlier messages (the history).

    A human turn at the end of `messages` is the new question when this run's input brought
    it (chat clients send only that); otherwise `question` is, as Python callers send it.
    """
    messages = list(state.get("messages") or [])
    if _sent_now(state):
        return messages[-1].content, messages[:-1]
    if state.get("question") is not None:  # "" is a question, and rejected as empty
        return state["question"], messages
    raise InvalidQuestionError("no question: send `question` or end `messages` with a human turn")


STOPPED_TURN = "(This question was stopped before it was answered.)"
"""The answer that closes a turn a stopped, cancelled or crashed run left open."""


def _sent_now(state: State) -> bool:
    """Tell whether the trailing human message came with this run's input.

    A turn that was stopped (cancelled, disconnected, killed) leaves its own question at the
    end of the thread; `asked_id` names it, so the next run's `question` does not lose to it.
    """
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    if not isinstance(last, HumanMessage):
        return False
    return last.id is None or last.id != state.get("asked_id")


def _turn_messages(state: State, question: str) -> dict[str, Any]:
    """Return the message updates that open this turn, closing a stopped turn left open."""
    messages = state.get("messages") or []
    if _sent_now(state):
        return {"messages": [], "asked_id": messages[-1].id}
    stopped = messages and isinstance(messages[-1], HumanMessage)
    closing = [AIMessage(STOPPED_TURN, response_metadata={"abstained": True, "stopped": True})]
    closing = closing if stopped else []
    asked = HumanMessage(question, id=str(uuid.uuid4()))
    return {"messages": [*closing, asked], "asked_id": asked.id}


def fresh_turn() -> dict[str, Any]:
    """Return the updates that clear every per-turn field."""
    return {
        "passages": Overwrite([]),
        "events": Overwrite([]),
        "degraded": Overwrite([]),
        "strips": [],
        "reasoning": [],
        "candidates": [],
        "crag_scores": [],
        "window_scores": Overwrite({}),
        "crag_action": None,
        "ircot_steps": 0,
        "ircot_answer": None,
        "ircot_done": None,
        "ircot_done_reason": None,
        "index_failed": False,
        "retrievals": 0,
        "retries": 0,
        "retry": None,
        "web_searched": False,
        "stop_reason": None,
        "citations": [],
        "notes": [],
        "abstained": False,
    }


def condense_question(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Check the question, then rewrite a follow-up into a standalone question."""
    raw, history = _asked(state)
    question = validate_question(raw, max_chars=runtime.context.max_question_chars)
    earlier = exchanges(history, state.get("standalone_question"))
    how: Condensed = "off" if earlier else "first turn"
    made = Rewrite(question, "kept")
    if earlier and runtime.context.condense_history:
        made = deps.follow_ups_for(runtime.context).rewrite(question, earlier)
        how = made.made
    if made.problem:
        used = f"{made.made}: {made.referent or made.question}"
        why = made.degraded or None
        emit(
            runtime,
            fallback("condense_question", "rewriter", made.problem, used=used, degraded=why),
        )
    shown = QuestionEvent(
        type="question",
        node="condense_question",
        question=question,
        standalone=made.question,
        condensed=how,
        referent=made.referent,
    )
    emit(runtime, shown)
    return {
        **fresh_turn(),
        "question": question,
        "standalone_question": made.question,
        "search_query": made.question,
        **_turn_messages(state, question),
    }


def exchanges(history: list[AnyMessage], last_standalone: str | None) -> list[Exchange]:
    """Return the earlier turns as exchanges; the last one as it was understood."""
    found: list[Exchange] = []
    for i, message in enumerate(history):
        if isinstance(message, HumanMessage):
            reply = next((m for m in history[i + 1 :] if not isinstance(m, HumanMessage)), None)
            abstained = isinstance(reply, AIMessage) and reply.response_metadata.get("abstained")
            answer = "" if reply is None or abstained else reply.text
            found.append(Exchange(message.text, message.text, answer))
    if found and last_standalone:
        last = found[-1]
        found[-1] = Exchange(last.question, last_standalone, last.answer)
    return found
