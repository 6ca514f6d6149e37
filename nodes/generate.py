"""Node `generate`: write candidate answers, one per group of top strips (Self-RAG style).

The first candidate's tokens stream to the user as the model writes them; the others are
written outside the answer stream, and `reflect` may prefer one of them (`finalize` then says
the answer was revised).
"""

import logging
import re
from collections.abc import Sequence
from typing import Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import emit, fallback
from graphs.state import Candidate, Passage, State, Strip
from models.judges_llm import choice_probabilities
from models.text import strip_markup
from nodes._common import call_model, format_passages, mean_logprob, text_of
from nodes._degrade import retry_or_degrade
from nodes._token_answer import check_answer
from prompts.framing import as_data
from prompts.generate import (
    ANSWER_SYSTEM,
    ANSWER_WITH_KNOWLEDGE,
    ANSWER_WITHOUT_KNOWLEDGE,
    CLOSED_BOOK_SYSTEM,
    CONVERSATION_BLOCK,
    JUDGE_ANSWER,
    NOT_FOUND,
    REASONING_BLOCK,
    SENTENCE_ANSWER_RULE,
    SHORT_ANSWER_RULE,
)

__all__ = [
    "CandidatesUpdate",
    "answer_messages",
    "clean_answer",
    "evidence_groups",
    "generate",
    "judge_answer",
    "retry_options",
]

logger = logging.getLogger(__name__)

_HISTORY_TURNS = 6
"""Earlier messages a closed-book answer sees."""
_NONE = "no candidate from this evidence"
_PREFIX = re.compile(r"^\s*(answer\s*:|so the answer is\s*:?)\s*", re.IGNORECASE)


def evidence_groups(kept: Sequence[Strip], *, count: int, per_passage: bool) -> list[list[Strip]]:
    """Return the evidence of each candidate: all kept strips, then the best passages alone."""
    groups = [list(kept)]
    if not per_passage or count < 2:
        return groups
    by_passage: dict[str, list[Strip]] = {}
    for strip in kept:
        by_passage.setdefault(strip["passage_hash"], []).append(strip)
    if len(by_passage) < 2:
        return groups
    ranked = sorted(by_passage.values(), key=lambda g: -max(s["score"] for s in g))
    return groups + ranked[: count - 1]


def clean_answer(reply: str, *, short: bool = False) -> str:
    """Return the answer's first paragraph (first line if `short`), no prefix and no markup."""
    text = reply.strip().split("\n\n")[0].strip()
    if short:
        text = text.split("\n")[0].strip()
    lines = [strip_markup(line) for line in text.splitlines()]
    return _PREFIX.sub("", "\n".join(line for line in lines if line)).strip()


def answer_messages(
    question: str,
    evidence: Sequence[Passage | Strip],
    *,
    short: bool,
    reasoning: Sequence[str] = (),
    history: Sequence[BaseMessage] = (),
) -> list[BaseMessage]:
    """Return the messages that ask for an answer from `evidence`.

    Without evidence (route A) the answer is closed book, and sees the last turns of
    `history`: "what did I just ask?" or "say that more simply" need no documents, only it.
    """
    rule = SHORT_ANSWER_RULE if short else SENTENCE_ANSWER_RULE
    if not evidence:
        lines = [f"{m.type}: {as_data(m.text)}" for m in history[-_HISTORY_TURNS:]]
        conversation = CONVERSATION_BLOCK.format(lines="\n".join(lines)) if lines else ""
        asked = ANSWER_WITHOUT_KNOWLEDGE.format(
            conversation=conversation, rule=rule, question=question
        )
        return [SystemMessage(CLOSED_BOOK_SYSTEM), HumanMessage(asked)]
    block = REASONING_BLOCK.format(sentences=as_data("\n".join(reasoning))) if reasoning else ""
    asked = ANSWER_WITH_KNOWLEDGE.format(
        passages=format_passages(evidence), reasoning=block, rule=rule, question=question
    )
    return [SystemMessage(ANSWER_SYSTEM), HumanMessage(asked)]


def retry_options(attempt: int) -> dict[str, Any]:
    """Return the sampling options of a regeneration, so it does not repeat the same answer."""
    return {"temperature": 0.7, "seed": attempt}


def _candidate(
    reply: AIMessage, evidence: Sequence[Strip], *, short: bool, streamed: bool
) -> Candidate:
    return Candidate(
        text=clean_answer(text_of(reply), short=short),
        strip_hashes=[s["hash"] for s in evidence],
        logprob=mean_logprob(reply),
        is_rel=0.0,
        is_sup=0.0,
        support="none",
        is_use=0.0,
        score=0.0,
        message_id=reply.id if streamed else None,
    )


def _token_checked(
    state: State, context: Context, model: Any, kept: Sequence[Strip], read: Candidate
) -> Candidate | None:
    """Return the reader's answer rebuilt around a token the strips hold, when it asks one."""
    if not (context.token_answers and kept and not state.get("retries", 0)):
        return None
    question, short = state["standalone_question"], context.answer_style == "short"
    try:
        checked = check_answer(model, question, read["text"], kept, short=short)
    except Exception:  # noqa: BLE001 - no valid choice: the reader's answer stands
        logger.info("no token chosen; the reader's answer stands", exc_info=True)
        return None
    if checked is None or checked.text == read["text"]:
        return None
    rebuilt: Candidate = {
        **read,
        "text": checked.text,
        "strip_hashes": [checked.strip["hash"]],
        "message_id": None,  # the reader's answer streamed; `finalize` marks this a revision
    }
    return rebuilt


class CandidatesUpdate(TypedDict):
    """What `generate` writes."""

    candidates: list[Candidate]


def _options(state: State, context: Context, model: BaseChatModel) -> dict[str, Any]:
    """Return the model options: log-probs when asked for, sampling on a regeneration."""
    options: dict[str, Any] = {}
    if context.use_logprobs and "logprobs" in type(model).model_fields:
        options["logprobs"] = True
    if state.get("retries", 0):  # a regeneration: sample instead of repeating the same answer
        options |= retry_options(state["retries"])
    return options


def _write(
    state: State, evidence: Sequence[Strip], runtime: Runtime[Context], deps: Deps, *, first: bool
) -> Candidate | None:
    """Write one candidate from `evidence`; None (after a fallback event) when the model fails."""
    context = runtime.context
    model = deps.generator_for(context)
    short = context.answer_style == "short"
    messages = answer_messages(
        state["standalone_question"],
        evidence,
        short=short,
        reasoning=state.get("reasoning") or [],
        history=(state.get("messages") or [])[:-1],
    )
    try:
        reply = call_model(
            model,
            messages,
            max_tokens=context.max_answer_tokens,
            name="generate",
            stream=first,
            **_options(state, context, model),
        )
    except Exception as error:  # noqa: BLE001 - a failing model degrades the run (retried)
        reason = retry_or_degrade(runtime, error, "the answer model")
        emit(runtime, fallback("generate", "generator", reason, used=_NONE, degraded=reason))
        return None
    written = _candidate(reply, evidence, short=short, streamed=first)
    answered = written["text"].strip() and NOT_FOUND not in written["text"]
    if context.verify_below is not None and evidence and answered:
        verified = judge_answer(model, state["standalone_question"], evidence, written["text"])
        if verified is not None:
            written["verified"] = verified
    return written


def judge_answer(
    model: BaseChatModel, question: str, evidence: Sequence[Strip], answer: str
) -> float | None:
    """Return the reader's P(yes), asked in a chat of its own, that the passages state `answer`.

    A new chat judges better than asking next in the answer's chat, where the reader agrees
    with itself (docs/answers.md). The prompt starts like the answer prompt, so llama.cpp reuses
    the passages from its cache. None when the model fails or reports no probabilities (nothing
    is decided then).
    """
    if "logprobs" not in type(model).model_fields:
        return None
    asked = JUDGE_ANSWER.format(
        passages=format_passages(evidence), question=question, answer=as_data(answer)
    )
    messages = [SystemMessage(ANSWER_SYSTEM), HumanMessage(asked)]
    try:
        said = call_model(
            model, messages, max_tokens=1, name="verify", logprobs=True, top_logprobs=10
        )
    except Exception:  # noqa: BLE001 - an unchecked answer stands as it would without the check
        logger.info("the answer check failed; the answer stands unchecked", exc_info=True)
        return None
    found = choice_probabilities(said, ["yes", "no"])
    return None if found is None else round(found["yes"], 4)


def generate(state: State, runtime: Runtime[Context], deps: Deps) -> CandidatesUpdate:
    """Write the candidates; the first streams live, the rest wait for `reflect`."""
    context = runtime.context
    kept = [s for s in state.get("strips") or [] if s["kept"]]
    count = context.candidates if context.reflect else 1
    groups = evidence_groups(kept, count=count, per_passage=not state.get("reasoning"))
    written = [
        _write(state, evidence, runtime, deps, first=index == 0)
        for index, evidence in enumerate(groups)
    ]
    candidates = [c for c in written if c is not None]
    model = deps.generator_for(context)
    token = _token_checked(state, context, model, kept, candidates[0]) if candidates else None
    return CandidatesUpdate(candidates=[token, *candidates] if token else candidates)
