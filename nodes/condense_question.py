"""Node `condense_question`: validate the question, start a fresh turn, resolve follow-ups."""

from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import event
from graphs.state import State
from graphs.validation import InvalidQuestionError, validate_question
from nodes._common import call_model, text_of, with_retries
from prompts.condense import CONDENSE_QUESTION
from prompts.framing import as_data

__all__ = ["condense_question", "fresh_turn"]

_HISTORY_TURNS = 6


def _asked(state: State) -> tuple[object, list[AnyMessage]]:
    """Return the question and the earlier messages (the history).

    A human turn at the end of `messages` is the new question (chat clients send only
    that); otherwise `question` is, as Python callers send it.
    """
    messages = list(state.get("messages") or [])
    if messages and isinstance(messages[-1], HumanMessage):
        return messages[-1].content, messages[:-1]
    if state.get("question"):
        return state["question"], messages
    raise InvalidQuestionError("no question: send `question` or end `messages` with a human turn")


def fresh_turn() -> dict[str, Any]:
    """Return the updates that clear every per-turn field."""
    return {
        "passages": Overwrite([]),
        "events": Overwrite([]),
        "strips": [],
        "reasoning": [],
        "candidates": [],
        "crag_scores": [],
        "ircot_steps": 0,
        "ircot_answer": None,
        "retrievals": 0,
        "retries": 0,
        "retry_action": None,
        "web_searched": False,
        "stop_reason": None,
        "citations": [],
    }


def condense_question(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Check the question, then rewrite a follow-up into a standalone question."""
    context = runtime.context
    raw, history = _asked(state)
    question = validate_question(raw, max_chars=context.max_question_chars)
    standalone = question
    if context.condense_history and any(isinstance(m, HumanMessage) for m in history):
        standalone = _condense(question, history, runtime, deps) or question
    updates = fresh_turn()
    updates["events"] = Overwrite(
        [event(runtime, "question", "condense_question", question=question, standalone=standalone)]
    )
    new_turn = (
        []
        if state.get("messages") and raw == state["messages"][-1].content
        else [HumanMessage(question)]
    )
    return {
        **updates,
        "question": question,
        "standalone_question": standalone,
        "search_query": standalone,
        "messages": new_turn,
    }


def _usable(text: str) -> bool:
    return bool(text.strip()) and len(text) < 1000


def _condense(
    question: str, history: list[AnyMessage], runtime: Runtime[Context], deps: Deps
) -> str | None:
    lines = [f"{m.type}: {as_data(m.text)}" for m in history[-_HISTORY_TURNS:]]
    prompt = CONDENSE_QUESTION.format(history="\n".join(lines), question=question)
    model = deps.rewriter_for(runtime.context)
    reply, _ = with_retries(
        lambda: text_of(call_model(model, [HumanMessage(prompt)], max_tokens=64, name="condense")),
        attempts=runtime.context.judge_attempts,
        check=_usable,
    )
    return reply.strip().splitlines()[0].strip() if reply else None
