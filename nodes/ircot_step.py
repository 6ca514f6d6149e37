"""Node `ircot_step`: IRCoT's next chain-of-thought sentence, which becomes the next query.

The loop ends, and the answer is written from the chain, when a sentence gives the answer
("So the answer is: X"), when a step adds no new fact (a repeat, or nothing new retrieved and
nothing new said), or at the step cap. A sentence whose new claim no kept strip holds (a fact
the model brought, not the passages: `supported`) is dropped from the chain: it never reaches
the reasoning or the answer. The next query is then the question itself, or, when the question
was the last query, the dropped sentence (a search, not a claim: it finds the passage that
can support or refute it, as IRCoT's queries do).
"""

import re
from typing import NamedTuple, NotRequired, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import IrcotStepEvent, cap_reached, emit
from graphs.state import IrcotEnd, State
from models.text import content_tokens, leading_sentence, stems, strip_markup
from nodes._common import ask_judge, call_model, format_passages, text_of
from prompts.ircot import ANSWER_MARKER, IRCOT_DEMOS, IRCOT_STEP, IRCOT_SYSTEM

__all__ = ["IrcotUpdate", "first_sentence", "ircot_step", "read_answer", "supported"]

_NAME = re.compile(r"\b(?:[A-Z][\w'-]*|\w*\d[\w.,-]*)")
"""A name-like word (capitalised) or a number."""


def first_sentence(reply: str) -> str:
    """Return the first sentence of the first non-empty line of `reply`, without markup."""
    lines = (strip_markup(ln) for ln in reply.splitlines())
    line = next((ln for ln in lines if ln), "")
    line = re.sub(r"^(reasoning|next sentence|sentence)\s*:\s*", "", line, flags=re.IGNORECASE)
    if ANSWER_MARKER in line.lower():  # keep "So the answer is: 6,960." whole
        return line.strip()
    return leading_sentence(line)


def read_answer(sentence: str) -> str | None:
    """Return X from "... answer is: X", or None when the sentence gives no answer."""
    index = sentence.lower().find(ANSWER_MARKER)
    if index < 0:
        return None
    answer = sentence[index + len(ANSWER_MARKER) :].strip(" :.\"'")
    return answer or None


def _new(sentence: str, earlier: list[str], question: str) -> bool:
    """Accept a statement that repeats neither an earlier sentence nor the question."""
    normal = " ".join(sentence.lower().split()).strip(" .")
    if not normal or sentence.rstrip().endswith("?"):
        return False
    if read_answer(sentence) is None and content_tokens(sentence) <= content_tokens(question):
        return False
    return all(normal != " ".join(s.lower().split()).strip(" .") for s in earlier)


def supported(sentence: str, strips: list[str], known: str) -> bool:
    """Tell whether one strip holds what the sentence claims beyond what is `known`.

    `known` is the question and the earlier sentences; an answer sentence claims its answer.
    The claim's names and numbers (capitalised or with a digit) must all be in that strip,
    and at least half its other words, by crude stem ("cracked" meets "cracking"; "wrote"
    does not meet "written", hence only half).
    """
    answer = read_answer(sentence)
    claimed = answer or sentence
    said = stems(content_tokens(known))
    names = stems(content_tokens(" ".join(_NAME.findall(claimed)))) - said
    words = stems(content_tokens(claimed)) - said - names
    if not names and not words:
        return True
    for strip in strips:
        held = stems(content_tokens(strip))
        if names <= held and 2 * len(words & held) >= len(words) - 1:
            return True
    return False


def _adds_nothing(state: State, sentence: str, sentences: list[str]) -> bool:
    """Return whether the last retrieval found nothing new and the sentence says nothing new."""
    last = state.get("retrievals", 0) - 1
    found_new = any(p["step"] == last for p in state.get("passages") or [])
    said = content_tokens(" ".join([state["standalone_question"], *sentences]))
    return bool(sentences) and not found_new and content_tokens(sentence) <= said


class IrcotUpdate(TypedDict):
    """What `ircot_step` writes (the sentence becomes the next query)."""

    ircot_steps: int
    ircot_answer: str | None
    ircot_done: IrcotEnd | None
    ircot_done_reason: str | None
    reasoning: NotRequired[list[str]]
    search_query: NotRequired[str]


class _Done(NamedTuple):
    why: IrcotEnd
    reason: str


def _messages(state: State, sentences: list[str]) -> list[BaseMessage]:
    """Return IRCoT's prompt: its demos, then the kept strips, the question and the chain."""
    kept = [s for s in state.get("strips") or [] if s["kept"]]
    prompt = IRCOT_STEP.format(
        passages=format_passages(kept),
        question=state["standalone_question"],
        sentences="\n".join(sentences) or "(none)",
    )
    messages: list[BaseMessage] = [SystemMessage(IRCOT_SYSTEM)]
    for demo, reply in IRCOT_DEMOS:
        messages += [HumanMessage(demo), AIMessage(reply)]
    return [*messages, HumanMessage(prompt)]


def ircot_step(state: State, runtime: Runtime[Context], deps: Deps) -> IrcotUpdate:
    """Write one reasoning sentence; end the loop on an answer, no progress, or the cap."""
    cap = runtime.context.ircot_max_steps
    sentences = list(state.get("reasoning") or [])
    messages = _messages(state, sentences)
    written = ask_judge(
        runtime,
        node="ircot_step",
        judge="generator",
        get=lambda: deps.generator_for(runtime.context),
        call=lambda model: first_sentence(
            text_of(call_model(model, messages, max_tokens=64, name="ircot_step"))
        ),
        check=lambda sentence: _new(sentence, sentences, state["standalone_question"]),
        used="no new sentence: answering from what was found",
    )
    step, sentence = state.get("ircot_steps", 0) + 1, written or ""
    question = state["standalone_question"]
    kept = [s["text"] for s in state.get("strips") or [] if s["kept"]]
    dropped = bool(sentence) and not supported(sentence, kept, " ".join([question, *sentences]))
    answer = None if dropped else read_answer(sentence)
    done = _why_done(state, sentence, sentences, answer, step, cap, dropped=dropped)
    shown = IrcotStepEvent(
        type="ircot_step", node="ircot_step", step=step, sentence=sentence, answer=answer
    )
    if dropped:
        shown["dropped"] = True
    emit(runtime, shown)
    if done and done.why == "cap":
        emit(runtime, cap_reached("ircot_step", "ircot_max_steps", cap, done.reason))
    update = IrcotUpdate(
        ircot_steps=step,
        ircot_answer=answer,
        ircot_done=done.why if done else None,
        ircot_done_reason=done.reason if done else None,
    )
    if dropped:
        update["search_query"] = question if state.get("search_query") != question else sentence
    elif sentence:
        update |= {"reasoning": [*sentences, sentence], "search_query": sentence}
    return update


def _why_done(
    state: State,
    sentence: str,
    sentences: list[str],
    answer: str | None,
    step: int,
    cap: int,
    *,
    dropped: bool,
) -> _Done | None:
    if dropped:  # nothing said: search again, within the cap
        return _Done("cap", _capped(cap)) if step >= cap else None
    if answer:
        return _Done("answer", "the reasoning reached an answer")
    if not sentence:
        return _Done("no_fact", "no new fact: answering from what was found")
    if _adds_nothing(state, sentence, sentences):
        return _Done("no_progress", "nothing new retrieved or said: answering from what was found")
    if step >= cap:
        return _Done("cap", _capped(cap))
    return None


def _capped(cap: int) -> str:
    return f"IRCoT reached its cap of {cap} steps; answering from what was found"
