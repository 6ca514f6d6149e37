"""Node `condense_question`: validate the question, start a fresh turn, resolve follow-ups.

A follow-up ("Where was she born?") becomes a standalone question by the rewriter model, but
the rewrite is checked, not trusted: it must be a question, keep the new turn's own words, and
not copy the previous answer. A rewrite that fails the check gives way to a safe template
(the new turn, with the previous question as its context).
"""

import re
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import FallbackEvent, QuestionEvent, emit
from graphs.state import State
from graphs.validation import InvalidQuestionError, validate_question
from models.text import content_tokens, strip_markup
from nodes._common import ask_judge, call_model, text_of
from prompts.condense import CONDENSE_QUESTION
from prompts.framing import as_data

__all__ = ["condense_question", "fresh_turn", "keeps_intent", "template_question"]

_HISTORY_TURNS = 6
_MAX_CHARS = 400
_CONTEXT = re.compile(r"\s*\(context: (.*)\)$")
_QUESTION_START = (
    "what which who whom whose when where why how is are was were do does did can could "
    "should would will has have had in on at for from by to list name tell give explain"
).split()


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


def keeps_intent(rewrite: str, *, turn: str, previous_answer: str = "") -> bool:
    """Return whether a rewrite is a standalone question that keeps the new turn's intent.

    It must read as a question, keep most of the turn's content words, and not be a copy of
    the previous answer (a small model's usual failure).
    """
    text = rewrite.strip()
    words = text.lower().split()
    if not words or len(text) > _MAX_CHARS:
        return False
    if not (text.endswith("?") or words[0] in _QUESTION_START):
        return False
    own = content_tokens(turn)
    kept = own & content_tokens(text)
    # Strict on purpose: "When was she born?" -> "When did X's show debut?" keeps the question
    # word but not the intent. A paraphrase ("married" -> "husband") falls back to the template.
    if own and len(kept) < max(1, (len(own) + 1) // 2):
        return False
    answer = content_tokens(previous_answer)
    extra = content_tokens(text) - own
    return not (answer and extra and extra <= answer and len(extra) > 3)


def template_question(turn: str, previous: str) -> str:
    """Return the safe standalone form: the new turn, with the previous question as context."""
    earlier = previous.strip()
    while nested := _CONTEXT.search(earlier):  # flatten an earlier template's own context
        earlier = f"{earlier[: nested.start()]} {nested.group(1)}".strip()
    return f"{turn.rstrip()} (context: {earlier})" if earlier else turn


def condense_question(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Check the question, then rewrite a follow-up into a standalone question."""
    context = runtime.context
    raw, history = _asked(state)
    question = validate_question(raw, max_chars=context.max_question_chars)
    standalone, how = question, "first turn"
    fallback: list[FallbackEvent] = []
    degraded: list[str] = []
    if any(isinstance(m, HumanMessage) for m in history):
        previous = state.get("standalone_question") or _last_question(history)
        standalone, how, fallback, degraded = _standalone(
            question, history, previous, runtime, deps
        )
    shown = QuestionEvent(
        type="question",
        node="condense_question",
        question=question,
        standalone=standalone,
        condensed=how,  # type: ignore[typeddict-item]
    )
    emit(runtime, shown)
    asked_now = state.get("messages") and raw == state["messages"][-1].content
    return {
        **fresh_turn(),
        "events": Overwrite([*fallback, shown]),
        "degraded": Overwrite(degraded),
        "question": question,
        "standalone_question": standalone,
        "search_query": standalone,
        "messages": [] if asked_now else [HumanMessage(question)],
    }


def _last_question(history: list[AnyMessage]) -> str:
    return next((m.text for m in reversed(history) if isinstance(m, HumanMessage)), "")


def _standalone(
    question: str,
    history: list[AnyMessage],
    previous: str,
    runtime: Runtime[Context],
    deps: Deps,
) -> tuple[str, str, list[FallbackEvent], list[str]]:
    """Return the standalone question, how it was made, and the rewriter's failure if any."""
    if not runtime.context.condense_history:
        return question, "off", [], []
    lines = [f"{m.type}: {as_data(m.text)}" for m in history[-_HISTORY_TURNS:]]
    prompt = CONDENSE_QUESTION.format(history="\n".join(lines), question=question)
    answer = next((m.text for m in reversed(history) if isinstance(m, AIMessage)), "")
    verdict = ask_judge(
        runtime,
        node="condense_question",
        judge="rewriter",
        get=lambda: deps.rewriter_for(runtime.context),
        call=lambda model: _first_line(
            call_model(model, [HumanMessage(prompt)], max_tokens=64, name="condense")
        ),
        check=lambda text: keeps_intent(text, turn=question, previous_answer=answer),
        used="the previous question with the new turn",
    )
    if verdict.value is None:
        return template_question(question, previous), "template", *verdict[1:]
    return verdict.value, "model", [], []


def _first_line(message: AIMessage) -> str:
    lines = [strip_markup(ln) for ln in text_of(message).splitlines()]
    text = next((ln for ln in lines if ln), "")
    for prefix in ("standalone question:", "question:"):
        if text.lower().startswith(prefix):
            text = text[len(prefix) :].strip()
    return text
