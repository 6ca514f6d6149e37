"""The `llm` follow-up rewriter: the reader writes the rewrite, the conversation checks it.

The reader is asked for a schema-constrained `{standalone_question, refers_to}` with the
earlier turns given as data. The reply is used only if it holds up (`problem`, in
`models.followup_checks`): a question, the new turn's own words kept, not a copy of the
previous answer, no pronoun left, and a `refers_to` that is a name or short noun phrase
occurring in an earlier question or answer (never a whole sentence) and named in the rewrite.
A reply that fails only mechanically (the right `refers_to` not put in, an "and X?" merged
with the earlier question) is mended in text (`repaired`); otherwise the reader is asked once
more with the rejected reply and why in the same message, then the rules (`RulesRewriter`)
answer, and the rewrite says why the model's was not used.
"""

import json
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from models.followup import Exchange, Rewrite, RulesRewriter, stands_alone, without_context
from models.followup_checks import MAX_CHARS, keeps_intent, problem, repaired, said_referent
from models.followup_rules import pronouns
from models.names import name_runs
from models.text import strip_markup
from prompts.condense import (
    CONDENSE_EXAMPLES,
    CONDENSE_FOLLOW_UP,
    CONDENSE_RETRY,
    CONDENSE_SYSTEM,
)
from prompts.framing import as_data

__all__ = ["LlmRewriter", "keeps_intent", "problem", "repaired"]

_HISTORY_TURNS = 3
_PUNCTUATION = "?!.,;:\"'()"
_SCHEMA: dict[str, Any] = {
    "title": "follow_up",
    "type": "object",
    "properties": {
        "refers_to": {"type": "string", "maxLength": 80},
        "standalone_question": {"type": "string", "maxLength": MAX_CHARS},
    },
    "required": ["refers_to", "standalone_question"],
    "additionalProperties": False,
}


_EXAMPLES: tuple[BaseMessage, ...] = (
    SystemMessage(CONDENSE_SYSTEM),
    *(
        message
        for conversation, turn, reply in CONDENSE_EXAMPLES
        for message in (
            HumanMessage(CONDENSE_FOLLOW_UP.format(history=conversation, question=turn)),
            AIMessage(reply),
        )
    ),
)
"""The instruction and the worked turns: the same prefix on every call (the KV cache keeps it)."""


class LlmRewriter:
    """Ask the reader for a checked rewrite; the rules answer when it does not hold up."""

    def __init__(self, model: Callable[[], BaseChatModel], *, attempts: int = 2) -> None:
        """Keep how to get the model (it may be missing) and how often to ask it."""
        self.model = model
        self.attempts = attempts

    def rewrite(self, turn: str, history: Sequence[Exchange]) -> Rewrite:
        """Return the standalone question for `turn`."""
        if stands_alone(turn):
            return Rewrite(turn, "kept")
        try:
            model = self.model()
        except Exception as error:  # noqa: BLE001 - a missing model degrades to the rules
            found = RulesRewriter().rewrite(turn, history)
            return Rewrite(found.question, found.made, found.referent, str(error), str(error))
        seen, rejected = "no attempt made", None
        for _ in range(max(1, self.attempts)):
            try:
                reply = self._ask(model, turn, history, rejected)
            except Exception as error:  # noqa: BLE001 - junk output: ask again, then rules
                seen = f"{type(error).__name__}: {error}"[:300]
                continue
            seen = problem(reply, turn, history) or ""
            if not seen:
                return _accepted(reply, turn, history)
            fixed = repaired(reply, turn, history)
            if fixed and not problem(fixed, turn, history):
                return _accepted(fixed, turn, history)
            rejected = (reply, seen)
        found = RulesRewriter().rewrite(turn, history)
        return Rewrite(found.question, found.made, found.referent, seen)

    @staticmethod
    def _ask(
        model: BaseChatModel,
        turn: str,
        history: Sequence[Exchange],
        rejected: tuple[dict[str, Any], str] | None = None,
    ) -> dict[str, Any]:
        """Ask for `{refers_to, standalone_question}`; a rejected reply is shown with why."""
        lines = []
        for e in history[-_HISTORY_TURNS:]:
            asked = e.question if without_context(e.standalone) != e.standalone else e.standalone
            lines += [f"user: {as_data(asked)}", f"assistant: {as_data(e.answer or '-')}"]
        prompt = CONDENSE_FOLLOW_UP.format(history="\n".join(lines), question=as_data(turn))
        runnable = model.with_structured_output(_SCHEMA, max_tokens=96).with_config(
            tags=["nostream"], run_name="condense"
        )
        if rejected:
            earlier, why = rejected
            shown = as_data(json.dumps(earlier, ensure_ascii=False))
            prompt += "\n" + CONDENSE_RETRY.format(reply=shown, why=why)
        reply = runnable.invoke([*_EXAMPLES, HumanMessage(prompt)])
        if not isinstance(reply, dict):
            raise ValueError(f"the rewriter returned {type(reply).__name__}, not an object")
        return reply


def _accepted(reply: dict[str, Any], turn: str, history: Sequence[Exchange]) -> Rewrite:
    question = strip_markup(str(reply["standalone_question"])).strip()
    referent = " ".join(str(reply.get("refers_to", "")).split()).strip(" .,;:\"'")
    if not said_referent(referent, history):
        referent = _added(question, turn)
    found = pronouns(turn)
    said = f"{found[0].group(0).lower()} = {referent}" if found and referent else referent
    return Rewrite(question, "model", said)


def _added(question: str, turn: str) -> str:
    """Return what the rewrite added to the turn: its first name, else its first added words."""
    typed = {w.strip(_PUNCTUATION).lower() for w in turn.split()}
    run: list[str] = []
    for word in question.split():
        bare_word = word.strip(_PUNCTUATION)
        if bare_word.lower() not in typed:
            run.append(bare_word)
        elif run:
            break
    names = name_runs(" ".join(run))
    return names[0] if names else " ".join(run)
