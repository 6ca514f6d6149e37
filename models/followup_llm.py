"""The `llm` follow-up rewriter: the reader writes the rewrite, the conversation checks it.

The reader is asked for a schema-constrained `{standalone_question, refers_to}` with the
earlier turns given as data. The reply is used only if it holds up (`problem`): a question,
the new turn's own words kept, not a copy of the previous answer, no pronoun left, and a
`refers_to` that is a name or short noun phrase occurring in an earlier question or answer
(never a whole sentence) and named in the rewrite. Otherwise the rules (`RulesRewriter`)
answer, and the rewrite says why the model's was not used.
"""

import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from models.followup import (
    Exchange,
    Rewrite,
    RulesRewriter,
    is_fragment,
    points_back,
    stands_alone,
    without_context,
)
from models.followup_repair import ellipsis_from, merged_with, put_referent
from models.followup_rules import pronoun_kind, pronouns
from models.names import ARTICLES, NOT_NAMES, name_runs
from models.text import AUXILIARIES, content_tokens, stems, strip_markup
from prompts.condense import (
    CONDENSE_EXAMPLES,
    CONDENSE_FOLLOW_UP,
    CONDENSE_RETRY,
    CONDENSE_SYSTEM,
)
from prompts.framing import as_data

__all__ = ["LlmRewriter", "keeps_intent", "problem", "repaired"]

_HISTORY_TURNS = 3
_ABOUT_TALK = frozenset("sorry just mentioned talked said told earlier back going above".split())
"""Words about the conversation itself ("the press you just mentioned"): a rewrite drops them."""
_PUNCTUATION = "?!.,;:\"'()"
_MAX_CHARS = 400
_MAX_REFERENT_WORDS = 8
_QUESTION_START = frozenset(
    "what which who whom whose when where why how is are was were do does did can could should "
    "would will has have had list name tell give explain in on at for from by to".split()
)
_SCHEMA: dict[str, Any] = {
    "title": "follow_up",
    "type": "object",
    "properties": {
        "refers_to": {"type": "string", "maxLength": 80},
        "standalone_question": {"type": "string", "maxLength": _MAX_CHARS},
    },
    "required": ["refers_to", "standalone_question"],
    "additionalProperties": False,
}


def keeps_intent(rewrite: str, *, turn: str, previous_answer: str = "") -> bool:
    """Return whether a rewrite is a question that keeps the new turn's intent.

    It must read as a question, keep most of the turn's content words, and not be a copy of
    the previous answer (a small model's usual failure).
    """
    text = rewrite.strip()
    words = text.lower().split()
    if not words or len(text) > _MAX_CHARS:
        return False
    if not (text.endswith("?") or words[0] in _QUESTION_START):
        return False
    own = content_tokens(turn) - _ABOUT_TALK
    kept = own & content_tokens(text)
    if own and len(kept) < max(1, (len(own) + 1) // 2):
        return False
    answer = content_tokens(previous_answer)
    extra = content_tokens(text) - own
    return not (answer and extra and extra <= answer and len(extra) > 3)


def _unresolved(question: str, turn: str) -> str:
    """Return a pronoun the rewrite left unresolved, or "".

    A kind of pronoun (he, she, it, they) is resolved when the rewrite holds fewer of it than
    the turn: "What did Odile Fanshaw name the water-lily she discovered?" resolves "she";
    "What did Aurel Corvane leave to it?" leaves "it".
    """
    typed = Counter(pronoun_kind(m.group(0)) for m in pronouns(turn))
    for m in pronouns(question):
        kind = pronoun_kind(m.group(0))
        if sum(pronoun_kind(n.group(0)) == kind for n in pronouns(question)) >= typed[kind]:
            return m.group(0)
    return ""


def _said(history: Sequence[Exchange]) -> str:
    texts = [t for e in history for t in (e.question, e.standalone, e.answer)]
    return " ".join(" ".join(texts).lower().split())


def _is_sentence(referent: str, history: Sequence[Exchange]) -> bool:
    """Tell whether a referent is a clause, not a name or noun phrase.

    Too long, a question, an auxiliary verb, a whole earlier question or answer of four words
    or more, or a name followed by a lowercase content word ("Marta Kello designed ...").
    """
    words = referent.split()
    if (
        len(words) > _MAX_REFERENT_WORDS
        or {w.lower() for w in words} & AUXILIARIES
        or "?" in referent
    ):
        return True
    said = [t for e in history for t in (e.question, e.answer) if len(t.split()) >= 4]
    if any(content_tokens(t) <= content_tokens(referent) for t in said):
        return True
    runs = name_runs(referent)
    after = referent.split(runs[0], 1)[1].split() if runs else []
    return bool(
        after
        and words[0].lower() not in ARTICLES
        and after[0].islower()
        and after[0] not in NOT_NAMES
    )


def problem(reply: dict[str, Any], turn: str, history: Sequence[Exchange]) -> str | None:
    """Return why a `{standalone_question, refers_to}` reply does not hold up, or None."""
    question = strip_markup(str(reply.get("standalone_question", ""))).strip()
    referent = " ".join(str(reply.get("refers_to", "")).split()).strip(" .,;:\"'")
    if not keeps_intent(question, turn=turn, previous_answer=history[-1].answer):
        return "the rewrite is not a question that keeps the new turn's words"
    if is_fragment(question):
        return "the rewrite is not a full question"
    if left := _unresolved(question, turn):
        return f"the rewrite left {left!r} unresolved"
    if points_back(turn) and content_tokens(question) <= content_tokens(turn):
        return "the rewrite adds nothing from the conversation"
    if referent and _is_sentence(referent, history):
        return f"the referent {referent!r} is a sentence, not a name"
    if both := merged_with(question, turn, " ".join(_asked(history))):
        return f"the rewrite asks about {both!r} too, which the short turn replaces"
    if _said_referent(referent, history):
        if not content_tokens(referent) <= content_tokens(question):
            return f"the rewrite does not name its referent {referent!r}"
        return None
    added = content_tokens(question) - content_tokens(turn)
    if not added and not pronouns(turn):
        return None  # a new topic kept as typed
    if added and stems(added) <= stems(content_tokens(_said(history))):
        return None  # no usable referent, but every word it brought was said before
    if referent:
        return f"the referent {referent!r} is not in the conversation"
    if found := pronouns(turn):
        return f"the rewrite names nothing for {found[0].group(0)!r}"
    return "the rewrite brings words the conversation never said"


def _asked(history: Sequence[Exchange]) -> list[str]:
    return [t for e in history for t in (e.question, e.standalone)]


def repaired(reply: dict[str, Any], turn: str, history: Sequence[Exchange]) -> dict[str, Any]:
    """Return the reply mended in text (`models.followup_repair`), or {} when it cannot be.

    A merged "and X?" rewrite becomes the previous standalone question about X; a rewrite
    (or, when it lost the turn's words, the turn) that still points back gets the reply's own
    `refers_to` put in, if that referent was said and is a name, not a sentence.
    """
    question = strip_markup(str(reply.get("standalone_question", ""))).strip()
    referent = " ".join(str(reply.get("refers_to", "")).split()).strip(" .,;:\"'")
    if both := merged_with(question, turn, " ".join(_asked(history))):
        fixed = ellipsis_from(history[-1].standalone, turn, both)
        return {"refers_to": "", "standalone_question": fixed} if fixed else {}
    if not points_back(turn) or not _said_referent(referent, history):
        return {}
    if _is_sentence(referent, history):
        return {}
    kept = keeps_intent(question, turn=turn, previous_answer=history[-1].answer)
    fixed = put_referent(question if kept else turn, turn, referent)
    return {"refers_to": referent, "standalone_question": fixed} if fixed else {}


def _said_referent(referent: str, history: Sequence[Exchange]) -> bool:
    return bool(referent) and referent.lower() in _said(history)


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
    if not _said_referent(referent, history):
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
