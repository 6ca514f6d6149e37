"""Follow-up rewriters: what the graph asks of whatever makes a follow-up standalone.

A `FollowUpRewriter` reads the new turn and the earlier exchanges of the thread and returns a
`Rewrite`: the standalone question, how it was made, and what the turn's reference was read
as ("she = Marta Kello"). `Context.follow_ups` chooses the kind: `llm` (the reader picks the
referent among the conversation's names, the code puts it in: `models.followup_choice`),
`write` (the reader writes the whole question, checked, else `llm`: `models.followup_write`),
`rules` (`models.followup_rules`, no model), or `template` (the turn with the previous question
as its context). All of them keep a turn that already stands alone as typed: a new topic is not
read into the previous one.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from models.followup_rules import pronouns, resolve_follow_up, short_answer
from models.names import name_runs, without_conjunction
from models.text import content_tokens
from prompts.framing import as_data

__all__ = [
    "Exchange",
    "FollowUpRewriter",
    "Made",
    "Rewrite",
    "RulesRewriter",
    "TemplateRewriter",
    "conversation_lines",
    "is_fragment",
    "points_back",
    "stands_alone",
    "template_question",
    "understood",
    "without_context",
]

_HISTORY_TURNS = 3
"""Earlier exchanges a follow-up model is shown (`conversation_lines`)."""

Made = Literal["model", "resolved", "template", "kept"]
"""The checked model rewrite, the rules' reading, the safe template, or the turn as typed."""

_CONTEXT = re.compile(r"\s*\(context: (.*)\)$")
_WH = frozenset("what which who whom whose when where why how".split())
_ASKING = _WH | frozenset(
    "is are was were do does did can could should would will has have had list name tell give "
    "explain".split()
)
_CONTRACTION = re.compile(r"['’](s|re|d|ll)$|(?<=^what)s$|(?<=^where)s$|(?<=^who)s$|(?<=^how)s$")
""""What's", and "whats" as people type it without the apostrophe, ask like "what"."""
_REFERRING = re.compile(
    r"\b(there|that|this|these|those|then|one|ones|mentioned|talked|said|same|former|latter|"
    r"above|earlier|again|else|back)\b|\b(?:you|we|i)\s+(?:just\s+)?(?:named|asked)\b|"
    r"\b(?:my|your)\s+(?:first|last|previous|earlier)\s+(?:question|answer)\b",
    re.IGNORECASE,
)
"""Words that point into the conversation ("that town", "the one you mentioned")."""
_ASKS_AGAIN = re.compile(r"^(?:what|how)\s+about\b", re.IGNORECASE)
""""What about Port Alder?": the previous question, asked about something else."""


@dataclass(frozen=True)
class Exchange:
    """One earlier turn of the thread."""

    question: str
    """What the user typed."""
    standalone: str
    """How it was understood (the typed question on a first turn)."""
    answer: str
    """The answer given ("" when the run abstained: it names nothing)."""


@dataclass(frozen=True)
class Rewrite:
    """A follow-up made standalone."""

    question: str
    made: Made
    referent: str = ""
    """What the turn's reference was read as, in a few words ("she = Marta Kello")."""
    problem: str = ""
    """Why the model's rewrite was not used ("" when it was, or none was asked for)."""
    degraded: str = ""
    """Why no model could be asked (a missing model), "" otherwise."""


@runtime_checkable
class FollowUpRewriter(Protocol):
    """Make a follow-up standalone from the earlier exchanges (oldest first, at least one)."""

    def rewrite(self, turn: str, history: Sequence[Exchange]) -> Rewrite:
        """Return the standalone question for `turn`."""
        ...


def is_fragment(text: str) -> bool:
    """Tell whether text is not a full question: no question word, no opening verb.

    A contracted question word counts as one ("What's the record?", "where's it from",
    "whats the budget"), and so does one that opens the clause after a fronted phrase ("For
    both zones, how much is a ticket?").
    """
    text = without_conjunction(text)
    clauses = [text, *text.split(",")[1:2]]
    return not any(_asks(clause) for clause in clauses)


def _asks(clause: str) -> bool:
    words = [_CONTRACTION.sub("", w.strip(",?")) for w in clause.lower().split()]
    return bool(words) and (words[0] in _ASKING or any(w in _WH for w in words[:2]))


def points_back(turn: str) -> bool:
    """Tell whether a turn cannot mean anything without the conversation.

    A pronoun, a pointing word ("there", "that town", "the one you mentioned"), a leading
    "And" or "What about", a fragment, or one content word at most ("for how long?", "What's
    the record?"): a rewrite of such a turn that adds nothing to it has not made it standalone.
    """
    text = without_conjunction(turn)
    return bool(
        text != turn.strip()
        or _ASKS_AGAIN.match(text)
        or is_fragment(text)
        or pronouns(text)
        or _REFERRING.search(text)
        or len(content_tokens(text)) <= 1
    )


def stands_alone(turn: str) -> bool:
    """Tell whether a turn is a full question that names its topic and points nowhere back.

    "Where was Odile Fanshaw born?" stands alone; "Where was she born?", "What is that town
    known for?", "And Port Alder?", "What about Port Alder?" and "Who built the hall?" (no
    name) do not.
    """
    text = without_conjunction(turn)
    if is_fragment(text) or pronouns(text) or _REFERRING.search(text) or _ASKS_AGAIN.match(text):
        return False
    return bool(name_runs(text))


def template_question(turn: str, previous: str, *, answer: str = "") -> str:
    """Return the safe standalone form: the new turn, with the previous question as context.

    A short previous answer joins the context ("... (context: Who is X married to? — Y)"), a
    leading "And" is dropped, and a fragment ("And xz -6?") is asked as "What about xz -6?".
    An earlier template's own context is left out, so a long thread stays short.
    """
    earlier = without_context(previous)
    named = short_answer(answer, earlier)
    if earlier and named:
        earlier = f"{earlier} — {named}"
    text = without_conjunction(turn)
    asked = f"What about {text}" if is_fragment(text) else text[:1].upper() + text[1:]
    return f"{asked} (context: {earlier})" if earlier else turn


def without_context(question: str) -> str:
    """Return a question without the "(context: ...)" a template added."""
    return _CONTEXT.sub("", question).strip()


def understood(exchange: Exchange) -> str:
    """Return how an earlier turn was understood (the typed turn if a template was used)."""
    bare = without_context(exchange.standalone)
    return exchange.question if bare != exchange.standalone else exchange.standalone


def conversation_lines(history: Sequence[Exchange]) -> str:
    """Return the last exchanges as "user:" and "assistant:" lines, each escaped as data."""
    lines = []
    for e in history[-_HISTORY_TURNS:]:
        lines += [f"user: {as_data(understood(e))}", f"assistant: {as_data(e.answer or '-')}"]
    return "\n".join(lines)


class TemplateRewriter:
    """The turn as typed when it stands alone, else the turn with the previous question."""

    def rewrite(self, turn: str, history: Sequence[Exchange]) -> Rewrite:
        """Return the standalone question for `turn`."""
        if stands_alone(turn):
            return Rewrite(turn, "kept")
        last = history[-1]
        return Rewrite(template_question(turn, last.standalone, answer=last.answer), "template")


class RulesRewriter:
    """The pronoun rules of `models.followup_rules`; the template when they find nothing."""

    def rewrite(self, turn: str, history: Sequence[Exchange]) -> Rewrite:
        """Return the standalone question for `turn`."""
        if stands_alone(turn):
            return Rewrite(turn, "kept")
        last = history[-1]
        resolved = resolve_follow_up(
            turn, previous=last.standalone, answer=last.answer, previous_turn=last.question
        )
        if resolved is None:
            return TemplateRewriter().rewrite(turn, history)
        return Rewrite(resolved.question, "resolved", f"{resolved.pronoun} = {resolved.referent}")
