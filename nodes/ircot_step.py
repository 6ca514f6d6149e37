"""Node `ircot_step`: IRCoT's next chain-of-thought sentence, which becomes the next query."""

import re
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import event
from graphs.state import State
from nodes._common import call_model, format_passages, text_of, with_retries
from prompts.ircot import ANSWER_MARKER, IRCOT_FIRST, IRCOT_NEXT, IRCOT_SYSTEM

__all__ = ["first_sentence", "ircot_step", "read_answer"]

_SENTENCE = re.compile(r"^(.+?[.!?])(\s|$)")


def first_sentence(reply: str) -> str:
    """Return the first sentence of the first non-empty line of `reply`."""
    line = next((ln.strip() for ln in reply.splitlines() if ln.strip()), "")
    match = _SENTENCE.match(line)
    return (match.group(1) if match else line).strip()


def read_answer(sentence: str) -> str | None:
    """Return X from "... answer is: X", or None when the sentence gives no answer."""
    index = sentence.lower().find(ANSWER_MARKER)
    if index < 0:
        return None
    answer = sentence[index + len(ANSWER_MARKER) :].strip(" :.\"'")
    return answer or None


def ircot_step(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Write one reasoning sentence; stop the loop when it says "answer is"."""
    context = runtime.context
    sentences = list(state.get("reasoning") or [])
    kept = [s for s in state.get("strips") or [] if s["kept"]]
    prompt = (IRCOT_NEXT if sentences else IRCOT_FIRST).format(
        passages=format_passages(kept),
        question=state["standalone_question"],
        sentences="\n".join(sentences),
    )
    model = deps.generator_for(context)
    messages = [SystemMessage(IRCOT_SYSTEM), HumanMessage(prompt)]
    sentence, problem = with_retries(
        lambda: first_sentence(
            text_of(
                call_model(
                    model,
                    messages,
                    max_tokens=min(context.max_answer_tokens, 64),
                    name="ircot_step",
                )
            )
        ),
        attempts=context.judge_attempts,
        check=bool,
    )
    step = state.get("ircot_steps", 0) + 1
    events = []
    if sentence is None:
        events.append(
            event(
                runtime,
                "fallback",
                "ircot_step",
                judge="generator",
                problem=problem,
                used="no sentence this step",
            )
        )
        sentence = ""
    answer = read_answer(sentence)
    events.append(
        event(runtime, "ircot_step", "ircot_step", step=step, sentence=sentence, answer=answer)
    )
    updates: dict[str, Any] = {"ircot_steps": step, "ircot_answer": answer, "events": events}
    if sentence:
        updates |= {"reasoning": [*sentences, sentence], "search_query": sentence}
    if answer is None and step >= context.ircot_max_steps:
        reason = f"IRCoT reached its cap of {context.ircot_max_steps} steps without an answer"
        updates["stop_reason"] = reason
        events.append(
            event(
                runtime,
                "cap_reached",
                "ircot_step",
                cap="ircot_max_steps",
                limit=context.ircot_max_steps,
                reason=reason,
            )
        )
    return updates
