"""Node `condense_question`: validate the question, start a fresh turn, resolve follow-ups.

A follow-up ("Where was she born?") is made standalone by the `FollowUpRewriter` that
`Context.follow_ups` chooses (`models.followup`): by default the rewriter model, checked
against the conversation, with the pronoun rules and then a template as fallbacks. The
question event says how, and what the reference was read as ("she = Marta Kello").
"""

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import Condensed, FallbackEvent, QuestionEvent, emit
from graphs.state import State
from graphs.validation import InvalidQuestionError, validate_question
from models.followup import Exchange, Rewrite

__all__ = ["condense_question", "exchanges", "fresh_turn"]


def _asked(state: State) -> tuple[object, list[AnyMessage]]:
    """Return the question and the earlier messages (the history).

    A human turn at the end of `messages` is the new question (chat clients send only
    that); otherwise `question` is, as Python callers send it.
    """
    messages = list(state.get("messages") or [])
    if messages and isinstance(messages[-1], HumanMessage):
        return messages[-1].content, messages[:-1]
    if state.get("question") is not None:  # "" is a question, and rejected as empty
        return state["question"], messages
    raise InvalidQuestionError("no question: send `question` or end `messages` with a human turn")


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
        "crag_action": None,
        "ircot_steps": 0,
        "ircot_answer": None,
        "ircot_done": None,
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
    fallback = [_fallback(runtime, made)] if made.problem else []
    shown = QuestionEvent(
        type="question",
        node="condense_question",
        question=question,
        standalone=made.question,
        condensed=how,
        referent=made.referent,
    )
    emit(runtime, shown)
    asked_now = state.get("messages") and raw == state["messages"][-1].content
    return {
        **fresh_turn(),
        "events": Overwrite([*fallback, shown]),
        "degraded": Overwrite([made.degraded] if made.degraded else []),
        "question": question,
        "standalone_question": made.question,
        "search_query": made.question,
        "messages": [] if asked_now else [HumanMessage(question)],
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


def _fallback(runtime: Runtime[Context], made: Rewrite) -> FallbackEvent:
    """Emit and return the fallback event of a model rewrite that was not used."""
    used = f"{made.made}: {made.referent or made.question}"
    event = FallbackEvent(
        type="fallback",
        node="condense_question",
        judge="rewriter",
        problem=made.problem,
        used=used,
        degraded=made.degraded or None,
    )
    emit(runtime, event)
    return event
