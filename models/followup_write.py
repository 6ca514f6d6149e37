"""The `write` follow-up rewriter: the model writes the whole question, the code checks it.

The model reads the last exchanges as data and answers `{"refers_to", "standalone_question"}`
in one schema-constrained reply (`prompts.follow_up_write`). The reply is used only when it
holds up against the conversation (`unusable`): what it refers to is said in the thread, the
question keeps the turn's own words, resolves the turn's pronouns, and adds only what it
leans on: its referent, the last exchange (whose topic, time and place a
follow-up carries on), and at most one word the conversation never said. Any other reply, a missing
model, or junk output hands the turn to the `fallback` rewriter (the `llm` choice path), and
the rewrite says why. A turn that stands alone is kept as typed, as by every rewriter.
"""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from models.followup import (
    Exchange,
    FollowUpRewriter,
    Rewrite,
    conversation_lines,
    is_fragment,
    points_back,
    stands_alone,
    understood,
)
from models.followup_rules import pronouns
from models.followup_times import time_pointer
from models.text import content_tokens, stems, strip_markup
from prompts.follow_up_write import NONE, WRITE_ALL_EXAMPLES, WRITE_ALL_SYSTEM, WRITE_ALL_TURN
from prompts.framing import as_data

__all__ = ["Written", "WriteRewriter", "unusable"]

_MAX_CHARS = 300
_NEW_WORDS = 1
"""Content words a rewrite may add that the conversation never said ("located", "open")."""
_SCHEMA = {
    "title": "follow_up",
    "type": "object",
    "properties": {
        "refers_to": {"type": "string", "maxLength": 120},
        "standalone_question": {"type": "string", "maxLength": _MAX_CHARS},
    },
    "required": ["refers_to", "standalone_question"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Written:
    """The model's reply: what the turn leans on, and the question written out."""

    refers_to: str
    question: str


def _prefix() -> tuple[BaseMessage, ...]:
    messages: list[BaseMessage] = [SystemMessage(WRITE_ALL_SYSTEM)]
    for history, question, refers_to, written in WRITE_ALL_EXAMPLES:
        messages.append(HumanMessage(WRITE_ALL_TURN.format(history=history, question=question)))
        reply = {"refers_to": refers_to, "standalone_question": written}
        messages.append(AIMessage(json.dumps(reply, ensure_ascii=False)))
    return tuple(messages)


_PREFIX = _prefix()
"""The instruction and worked turns: the same prefix on every call (the KV cache keeps it)."""


class WriteRewriter:
    """Ask the model for the whole standalone question; check it; else ask `fallback`."""

    def __init__(
        self,
        model: Callable[[], BaseChatModel],
        *,
        fallback: FollowUpRewriter,
        attempts: int = 2,
    ) -> None:
        """Keep how to get the model, the rewriter to fall back on, and how often to ask."""
        self.model = model
        self.fallback = fallback
        self.attempts = attempts

    def rewrite(self, turn: str, history: Sequence[Exchange]) -> Rewrite:
        """Return the standalone question for `turn`."""
        if stands_alone(turn):
            return Rewrite(turn, "kept")
        try:
            written = self._ask(self.model(), turn, history)
        except Exception as error:  # noqa: BLE001 - no model or junk output: the fallback
            return self._fall_back(turn, history, f"{type(error).__name__}: {error}"[:300])
        if written.refers_to.strip().lower() == NONE and not points_back(turn):
            return Rewrite(turn, "kept")  # a new topic, left as typed
        if why := unusable(written, turn, history):
            return self._fall_back(turn, history, f"{why} ({written.question!r})")
        return Rewrite(written.question, "model", written.refers_to)

    def _ask(self, model: BaseChatModel, turn: str, history: Sequence[Exchange]) -> Written:
        """Return the model's reply (`attempts` tries on junk output).

        Raises:
            ValueError: No try gave an object with both fields.
        """
        prompt = WRITE_ALL_TURN.format(history=conversation_lines(history), question=as_data(turn))
        runnable = model.with_structured_output(_SCHEMA, max_tokens=160).with_config(
            tags=["nostream"], run_name="condense"
        )
        seen = "no attempt made"
        for _ in range(max(1, self.attempts)):
            try:
                reply = runnable.invoke([*_PREFIX, HumanMessage(prompt)])
            except Exception as error:  # noqa: BLE001 - junk output: ask again
                seen = f"{type(error).__name__}: {error}"[:300]
                continue
            if isinstance(reply, dict) and {"refers_to", "standalone_question"} <= reply.keys():
                question = strip_markup(str(reply["standalone_question"])).strip()
                return Written(str(reply["refers_to"]).strip(), question)
            seen = f"the model returned {reply!r}"[:300]
        raise ValueError(seen)

    def _fall_back(self, turn: str, history: Sequence[Exchange], why: str) -> Rewrite:
        found = self.fallback.rewrite(turn, history)
        problem = f"{why}; then {found.problem}" if found.problem else why
        return Rewrite(found.question, found.made, found.referent, problem, found.degraded)


def unusable(written: Written, turn: str, history: Sequence[Exchange]) -> str:
    """Return why a written question cannot be used, or "" when it holds up.

    The checks need no reading of the particular conversation: each follows from what a
    standalone form of a follow-up is (the turn, plus what it leans on, from the thread).
    What `refers_to` names must be said, in an earlier turn or in the turn itself (a new
    topic typed in lower case); it licenses the words it brings from an older turn.
    """
    question, referent = written.question, written.refers_to
    if not question.endswith("?") or is_fragment(question) or len(question) > _MAX_CHARS:
        return f"the written question {question!r} is not a full question"
    said = [text for e in history for text in (understood(e), e.question, e.answer)]
    if referent.lower() == NONE or not _said_in(referent, [turn, *said]):
        return f"the referent {referent!r} is not said in the conversation"
    own, words = _stems(turn), _stems(question)
    if own and len(own & words) < (len(own) + 1) // 2:
        return "the written question lost the turn's own words"
    if pronouns(turn) and pronouns(question):
        return "the written question left a pronoun unresolved"
    if time_pointer(turn) and time_pointer(question):
        return "the written question left a time pointer unresolved"
    if not words - own:  # the turn handed back: whether it is a new topic is not shown
        return "the written question adds nothing to the turn"
    return _borrowed(words - own, referent, history, said)


def _borrowed(
    added: set[str], referent: str, history: Sequence[Exchange], said: Sequence[str]
) -> str:
    """Return why the words a rewrite adds are more than the turn leans on, or "".

    It may add its referent's words, the last exchange's (a follow-up carries on its topic,
    place and time), a time or number said anywhere ("that year"), and one word the
    conversation never said; not an older turn's other words.
    """
    last = history[-1]
    anywhere = set().union(*(_stems(text) for text in said))
    times = {w for w in anywhere if any(c.isdigit() for c in w)}
    borrowed = added - _stems(f"{referent} {understood(last)} {last.answer}") - times
    if borrowed & anywhere or len(borrowed) > _NEW_WORDS:
        return f"the written question brings in more than it leans on: {sorted(borrowed)}"
    return ""


def _said_in(referent: str, said: Sequence[str]) -> bool:
    """Tell whether every content word of `referent` occurs in one earlier text."""
    words = _stems(referent)
    return bool(words) and any(words <= _stems(text) for text in said)


def _stems(text: str) -> set[str]:
    return stems(content_tokens(text))
