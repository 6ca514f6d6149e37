"""Node `condense_question`: validate the question, start a fresh turn, resolve follow-ups.

A follow-up ("Where was she born?") becomes a standalone question by the rewriter model, but
the rewrite is checked, not trusted: it must be a question, keep the new turn's own words, and
not copy the previous answer, nor be a fragment or leave a referring pronoun in; and when the
pronoun rules (`nodes._coref`) know what the turn's pronoun means, it must name that. A
rewrite that fails gives way to the rules' reading ("resolved"), else to a safe template (the
new turn, with the previous question and a short previous answer as its context).
"""

import re
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
from models.text import content_tokens, strip_markup
from nodes._common import ask_judge, call_model, text_of
from nodes._coref import Resolution, resolve_follow_up, rewrite_problem, short_answer
from nodes._names import without_conjunction
from prompts.condense import CONDENSE_QUESTION
from prompts.framing import as_data

__all__ = ["STOPPED_TURN", "condense_question", "fresh_turn", "keeps_intent", "template_question"]

_HISTORY_TURNS = 6
_MAX_CHARS = 400
_CONTEXT = re.compile(r"\s*\(context: (.*)\)$")
_WH = "what which who whom whose when where why how".split()
_AUX = "is are was were do does did can could should would will has have had".split()
_ASKING = [*_WH, *_AUX, "list", "name", "tell", "give", "explain"]
"""First words that make a turn a question; `_WH` in the first two words does too."""
_QUESTION_START = [*_ASKING, "in", "on", "at", "for", "from", "by", "to"]


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


def template_question(turn: str, previous: str, *, answer: str = "") -> str:
    """Return the safe standalone form: the new turn, with the previous question as context.

    A short previous answer joins the context ("... (context: Who is X married to? — Y)"), a
    leading "And" is dropped, and a fragment ("And xz -6?") is asked as "What about xz -6?".
    """
    earlier = previous.strip()
    while nested := _CONTEXT.search(earlier):  # flatten an earlier template's own context
        earlier = f"{earlier[: nested.start()]} {nested.group(1)}".strip()
    named = short_answer(answer)
    if earlier and named:
        earlier = f"{earlier} — {named}"
    asked = _as_question(turn)
    return f"{asked} (context: {earlier})" if earlier else turn


def _as_question(turn: str) -> str:
    """Return the turn without a leading "And", a fragment asked as "What about ...?"."""
    text = without_conjunction(turn)
    return f"What about {text}" if _is_fragment(text) else text[:1].upper() + text[1:]


def _is_fragment(text: str) -> bool:
    """Tell whether text is not a full question: no question word, no opening verb."""
    words = [w.strip(",?") for w in text.lower().split()]
    return not (words and (words[0] in _ASKING or any(w in _WH for w in words[:2])))


def condense_question(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Check the question, then rewrite a follow-up into a standalone question."""
    context = runtime.context
    raw, history = _asked(state)
    question = validate_question(raw, max_chars=context.max_question_chars)
    how: Condensed
    standalone, how = question, "first turn"
    if any(isinstance(m, HumanMessage) for m in history):
        previous = state.get("standalone_question") or _last_question(history)
        standalone, how = _standalone(question, history, previous, runtime, deps)
    shown = QuestionEvent(
        type="question",
        node="condense_question",
        question=question,
        standalone=standalone,
        condensed=how,
    )
    emit(runtime, shown)
    return {
        **fresh_turn(),
        "question": question,
        "standalone_question": standalone,
        "search_query": standalone,
        **_turn_messages(state, question),
    }


def _last_question(history: list[AnyMessage]) -> str:
    return next((m.text for m in reversed(history) if isinstance(m, HumanMessage)), "")


def _standalone(
    question: str,
    history: list[AnyMessage],
    previous: str,
    runtime: Runtime[Context],
    deps: Deps,
) -> tuple[str, Condensed]:
    """Return the standalone question and how it was made (a rejected rewrite is emitted)."""
    if not runtime.context.condense_history:
        return question, "off"
    answer = _last_answer(history)
    resolved = resolve_follow_up(
        question, previous=previous, answer=answer, previous_turn=_last_question(history)
    )
    used = resolved.reading if resolved else "the previous question with the new turn"
    rewrite = _ask_rewriter(question, history, answer, runtime, deps, used=used)
    if rewrite is not None:
        problem = _misreading(rewrite, resolved)
        if problem is None:
            return rewrite, "model"
        emit(runtime, fallback("condense_question", "rewriter", problem, used=used))
    if resolved:
        return resolved.question, "resolved"
    return template_question(question, previous, answer=answer), "template"


def _misreading(rewrite: str, resolved: Resolution | None) -> str | None:
    """Return why a rewrite that passed `keeps_intent` is still not standalone, if it is not."""
    if _is_fragment(rewrite):
        return "the rewrite is not a full question"
    return rewrite_problem(rewrite, resolved)


def _last_answer(history: list[AnyMessage]) -> str:
    """Return the last answer's text ("" when the run abstained: it names nothing)."""
    last = next((m for m in reversed(history) if isinstance(m, AIMessage)), None)
    return "" if last is None or last.response_metadata.get("abstained") else last.text


def _ask_rewriter(
    question: str,
    history: list[AnyMessage],
    answer: str,
    runtime: Runtime[Context],
    deps: Deps,
    *,
    used: str,
) -> str | None:
    """Ask the rewriter for a standalone question that passes `keeps_intent`."""
    lines = [f"{m.type}: {as_data(m.text)}" for m in history[-_HISTORY_TURNS:]]
    prompt = CONDENSE_QUESTION.format(history="\n".join(lines), question=question)
    return ask_judge(
        runtime,
        node="condense_question",
        judge="rewriter",
        get=lambda: deps.rewriter_for(runtime.context),
        call=lambda model: _first_line(
            call_model(model, [HumanMessage(prompt)], max_tokens=64, name="condense")
        ),
        check=lambda text: keeps_intent(text, turn=question, previous_answer=answer),
        used=used,
    )


def _first_line(message: AIMessage) -> str:
    lines = [strip_markup(ln) for ln in text_of(message).splitlines()]
    text = next((ln for ln in lines if ln), "")
    for prefix in ("standalone question:", "question:"):
        if text.lower().startswith(prefix):
            text = text[len(prefix) :].strip()
    return text
