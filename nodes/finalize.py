"""Node `finalize`: the chosen answer, its citations and notes as data, and the AI turn.

State keeps the bare answer; citations and notes sit beside it, and the final `AIMessage`
carries the bare text with them in its `response_metadata`. Clients (the CLI, the page, the
notebook) render markers and source lists. When no kept evidence supports an answer on a
retrieval route, the answer says so plainly instead of guessing.
"""

import re
from collections.abc import Mapping, Sequence
from typing import TypedDict

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import AnswerEvent, Citation, emit, fallback, source_label
from graphs.state import Candidate, State, Strip
from models.judges import SupportLevel
from models.text import claimed_words, content_tokens
from prompts.generate import NOT_FOUND

__all__ = [
    "FinalUpdate",
    "NOT_IN_DOCUMENTS",
    "NO_ANSWER",
    "OVERLAP_CITATIONS",
    "cite",
    "finalize",
    "same_words",
    "should_abstain",
]

NO_ANSWER = "I could not produce an answer."
NOT_IN_DOCUMENTS = "I could not find the answer in your documents."


OVERLAP_CITATIONS = "citations chosen by shared words: the support judge judged no strip alone"
"""The `degraded` reason when `finalize` falls back from the judge's verdicts to word overlap."""


def cite(
    answer: str,
    evidence: Sequence[Strip],
    *,
    question: str = "",
    judged: Mapping[str, SupportLevel] | None = None,
) -> list[Citation]:
    """Return the evidence strips that support the answer (all of them if none does).

    With `judged` (the support judge's level per strip hash, `Candidate.strip_support`), a
    strip supports the answer when the judge found it `full` or `partial` on its own; without
    it, when it shares one of the answer's new words. One citation per source
    (`source_label`); each carries its strip's and passage's hashes.
    """
    if judged is not None:
        supporting = [s for s in evidence if judged.get(s["hash"], "none") != "none"]
    else:
        words = claimed_words(answer, question)
        supporting = [s for s in evidence if words & content_tokens(s["text"])]
    supporting = supporting or list(evidence)
    citations: list[Citation] = []
    for strip in supporting:
        where = source_label(strip)
        if any(c["label"] == where for c in citations):
            continue
        citations.append(
            Citation(
                marker=len(citations) + 1,
                title=strip["title"],
                source=strip["source"],
                position=strip["position"],
                url=strip["url"],
                origin=strip["origin"],
                label=where,
                passage_hash=strip["passage_hash"],
                strip_hash=strip["hash"],
                text=strip["text"],
            )
        )
    return citations


def should_abstain(
    state: State, best: Candidate | None, evidence: Sequence[Strip], context: Context
) -> bool:
    """Return whether a retrieval route found no evidence that supports an answer."""
    if not context.abstain or not (state.get("retrievals") or state.get("web_searched")):
        return False
    if best is None or not evidence or NOT_FOUND in best["text"].upper():
        return True
    yes_no = best["text"].strip(" .!").lower() in ("yes", "no")  # claims no word to check
    if best["support"] == "none" and not yes_no:  # the critic found its claim in no evidence
        return True
    if context.verify_below is not None and best.get("verified", 1.0) < context.verify_below:
        return True  # the reader, as a judge, doubts the passages state it
    return max(s["score"] for s in evidence) < context.abstain_below


def same_words(text: str) -> str:
    """Return text as compared with the draft: case, spacing and punctuation aside."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _notes(state: State, *, abstained: bool, guess: str | None, degraded: list[str]) -> list[str]:
    stop = state.get("stop_reason")
    notes = [f"Stopped early: {stop}."] if stop else []
    notes += [f"Degraded: {reason}." for reason in [*(state.get("degraded") or []), *degraded]]
    if abstained and guess:
        notes.append(f"Model-only guess (not from your documents): {guess}")
    return notes


def _cited(
    runtime: Runtime[Context],
    text: str,
    evidence: Sequence[Strip],
    best: Candidate | None,
    *,
    question: str,
) -> tuple[list[Citation], list[str]]:
    """Cite what the support judge found supporting; say so when overlap had to choose."""
    judged = best.get("strip_support") if best else None
    if judged is not None or not evidence:
        return cite(text, evidence, question=question, judged=judged), []
    problem = "no verdict per strip"
    emit(
        runtime,
        fallback("finalize", "support", problem, used="word overlap", degraded=OVERLAP_CITATIONS),
    )
    return cite(text, evidence, question=question), [OVERLAP_CITATIONS]


class FinalUpdate(TypedDict):
    """What `finalize` writes: the answer with its citations and notes, and the AI turn."""

    answer: str
    citations: list[Citation]
    notes: list[str]
    abstained: bool
    messages: list[AnyMessage]


def finalize(state: State, runtime: Runtime[Context], deps: Deps) -> FinalUpdate:
    """Pick the best candidate (or abstain), cite its evidence, and append the AI turn."""
    context = runtime.context
    candidates = state.get("candidates") or []
    best = candidates[0] if candidates else None
    strips = {s["hash"]: s for s in state.get("strips") or []}
    evidence = [strips[h] for h in (best["strip_hashes"] if best else []) if h in strips]
    abstained = should_abstain(state, best, evidence, context)
    text = (best["text"] if best else "") or state.get("ircot_answer") or NO_ANSWER
    guessed = context.model_guess and text != NO_ANSWER and NOT_FOUND not in text.upper()
    guess = text if guessed else None  # the model's own answer: never the no-answer filler
    if abstained:
        text, evidence = NOT_IN_DOCUMENTS, []
    question = state.get("standalone_question", "")
    citations, degraded = _cited(runtime, text, evidence, best, question=question)
    notes = _notes(state, abstained=abstained, guess=guess, degraded=degraded)
    live = next((c for c in candidates if c.get("message_id")), None)
    streamed = live["message_id"] if live else None
    revised = live is not None and (abstained or same_words(live["text"]) != same_words(text))
    shown = AnswerEvent(
        type="answer",
        node="finalize",
        answer=text,
        route=state.get("route"),
        citations=citations,
        notes=notes,
        abstained=abstained,
        revised=revised,
    )
    emit(runtime, shown)
    metadata = {"citations": citations, "notes": notes, "abstained": abstained}
    turn = AIMessage(
        text, id=None if revised else streamed, name="acrag", response_metadata=metadata
    )
    return FinalUpdate(
        answer=text, citations=citations, notes=notes, abstained=abstained, messages=[turn]
    )
