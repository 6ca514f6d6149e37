"""Whether a model's follow-up rewrite holds up against the conversation, and its text repairs.

`problem` says why a `{standalone_question, refers_to}` reply cannot be used: not a question
that keeps the new turn's own words, a fragment, a pronoun left, a turn that points back handed
back unchanged, a `refers_to` that is a sentence or was never said, or an "and X?" turn merged
with the earlier one. `repaired` mends the mechanical cases in text (`models.followup_repair`).
"""

from collections import Counter
from collections.abc import Sequence
from typing import Any

from models.followup import Exchange, is_fragment, points_back
from models.followup_repair import ellipsis_from, merged_with, put_referent
from models.followup_rules import pronoun_kind, pronouns
from models.names import ARTICLES, NOT_NAMES, name_runs
from models.text import AUXILIARIES, content_tokens, stems, strip_markup

__all__ = ["MAX_CHARS", "keeps_intent", "problem", "repaired", "said_referent"]

_ABOUT_TALK = frozenset("sorry just mentioned talked said told earlier back going above".split())
"""Words about the conversation itself ("the press you just mentioned"): a rewrite drops them."""
MAX_CHARS = 400
"""The longest standalone question accepted (and asked for)."""
_MAX_REFERENT_WORDS = 8
_QUESTION_START = frozenset(
    "what which who whom whose when where why how is are was were do does did can could should "
    "would will has have had list name tell give explain in on at for from by to".split()
)


def keeps_intent(rewrite: str, *, turn: str, previous_answer: str = "") -> bool:
    """Return whether a rewrite is a question that keeps the new turn's intent.

    It must read as a question, keep most of the turn's content words, and not be a copy of
    the previous answer (a small model's usual failure).
    """
    text = rewrite.strip()
    words = text.lower().split()
    if not words or len(text) > MAX_CHARS:
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
    if content_tokens(question) <= content_tokens(turn):
        # kept as typed: wrong for a turn that points back, a new topic left alone otherwise
        # (whatever `refers_to` names: the question is what is asked)
        return "the rewrite adds nothing from the conversation" if points_back(turn) else None
    if referent and _is_sentence(referent, history):
        return f"the referent {referent!r} is a sentence, not a name"
    if both := merged_with(question, turn, " ".join(_asked(history))):
        return f"the rewrite asks about {both!r} too, which the short turn replaces"
    if said_referent(referent, history):
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
    if not points_back(turn) or not said_referent(referent, history):
        return {}
    if _is_sentence(referent, history):
        return {}
    kept = keeps_intent(question, turn=turn, previous_answer=history[-1].answer)
    fixed = put_referent(question if kept else turn, turn, referent)
    return {"refers_to": referent, "standalone_question": fixed} if fixed else {}


def said_referent(referent: str, history: Sequence[Exchange]) -> bool:
    """Tell whether a referent was said in an earlier question or answer."""
    return bool(referent) and referent.lower() in _said(history)
