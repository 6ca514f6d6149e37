"""Resolve a follow-up's pronouns by rule (the `rules` follow-up rewriter): no model.

`resolve_follow_up` reads the new turn, the previous *standalone* question, the previous
answer and what the user typed last time, and replaces the turn's referring pronouns
(he him his she her hers it its they them their theirs) with what they mean:

1. One kind only. The pronouns must all be of one kind (he, she, it or they); a turn with none
   (an elliptical "And in Six Feet Under?") or with two kinds resolves nothing. A capitalised
   "It" inside a sentence is a title word.
2. Carry-over. If the previous turn was itself a follow-up with the same kind of pronoun, the
   pronoun means the same again: what the previous standalone question put in its place
   ("When did he die?" after "Whom did he play ...?" -> "Earle Hyman"), else the name that
   question brought in.
3. The answer. When the previous question asked for someone ("Who ...", "Whom ...") and the
   pronoun is a person's (he, she, they), it means the answer: a short answer as it is
   ("Roman Polanski"), or the first name a sentence answer adds to the question ("Marta Kello
   designed the Halvard Bridge." -> "Marta Kello").
4. The name. Otherwise the pronoun means the previous question's longest run of capitalised
   words, with inner joiners ("of", "the", "in", ...), numbers next to them, and a "the" just
   before ("the Battle of Manila", "The Ninth Gate"); see `models.names`.
5. Substitution. Every pronoun becomes the antecedent, a possessive (his, its, their, hers,
   "her" before a noun) becomes "X's"; a leading "And"/"So"/"But" is dropped.

Branches that did not pay on the dev half of the threads set (`bench/datasets/threads/`,
rules alone, `python -m bench.suites.multiturn --rewrites-only --split dev --set follow_ups=rules`)
were deleted: answers to "Which N"/"What N" questions named with N (it cost one rewrite), the
dummy "it", a quoted title as the name, the lone-acronym guard, the "Who was X?" exception,
the refusal of a switch of pronoun kind, and the name-shape and sentence-word tests of an
answer (no change either way).
"""

import re
from dataclasses import dataclass
from typing import Literal

from models.names import (
    ARTICLES,
    NOT_NAMES,
    TRAILING,
    bare,
    main_name,
    name_runs,
    split_words,
    without_conjunction,
)
from models.text import content_tokens

__all__ = [
    "Resolution",
    "pronoun_kind",
    "pronouns",
    "resolve_follow_up",
    "rewrite_problem",
    "short_answer",
]

Kind = Literal["he", "she", "it", "they"]
Source = Literal["previous turn", "previous answer", "previous question"]
_KINDS: dict[str, Kind] = {
    **dict.fromkeys(("he", "him", "his"), "he"),
    **dict.fromkeys(("she", "her", "hers"), "she"),
    **dict.fromkeys(("it", "its"), "it"),
    **dict.fromkeys(("they", "them", "their", "theirs"), "they"),
}
_POSSESSIVE = frozenset({"his", "hers", "its", "their", "theirs"})
_PRONOUN = re.compile(r"\b(" + "|".join(_KINDS) + r")\b", re.IGNORECASE)
_PERSON_KINDS = frozenset({"he", "she", "they"})
_MAX_ANSWER_WORDS = 6


@dataclass(frozen=True)
class Resolution:
    """A follow-up made standalone by rule."""

    question: str
    """The standalone question."""
    pronoun: str
    """The first pronoun replaced, as typed."""
    referent: str
    """What the pronouns were read as: a name or the previous answer."""
    source: Source
    """Where the referent came from."""

    @property
    def reading(self) -> str:
        """Say in plain words how the follow-up was read."""
        said = f"the follow-up with {self.pronoun!r} read as {self.referent}"
        return f"{said}, from the {self.source}"


def short_answer(answer: str, question: str = "") -> str:
    """Return the answer when it is a short phrase that can name something, else "".

    An answer of three words or more that repeats a content word of its `question` and does
    not open with an article is a sentence ("Marta Kello designed the Halvard Bridge." to "Who
    designed the Halvard Bridge?"), not a name.
    """
    text = " ".join(answer.split()).rstrip(".")
    words = text.split()
    if not words or len(words) > _MAX_ANSWER_WORDS or any(c in text for c in "?!;"):
        return ""
    said = content_tokens(text) & content_tokens(question)
    if said and len(words) > 2 and words[0].lower() not in ARTICLES:
        return ""  # "X designed the Halvard Bridge", not "the GNU time option --append"
    return text


def new_name(answer: str, previous: str) -> str:
    """Return the first name a sentence answer adds to the question, else "".

    "Who cracked the Enigma code?" answered "Alan Turing cracked the Enigma code in World War
    2." adds "Alan Turing": the names the question already holds are not what it asked for.
    """
    asked = {bare(w).lower() for w in split_words(previous)}
    for run in name_runs(answer):
        if not {bare(w).lower() for w in run.split()} <= asked:
            return run
    return ""


def resolve_follow_up(
    turn: str, *, previous: str, answer: str = "", previous_turn: str = ""
) -> Resolution | None:
    """Return the turn with its pronouns replaced by their antecedent, or None (see module)."""
    found = pronouns(turn)
    kinds = {_KINDS[m.group(0).lower()] for m in found}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    rewritten = bool(previous_turn) and split_words(previous_turn) != split_words(previous)
    before = {_KINDS[m.group(0).lower()] for m in pronouns(previous_turn)} if rewritten else set()
    if kind in before:
        carried = _carried(previous, previous_turn)
        return _resolution(turn, found, carried, "previous turn") if carried else None
    named = short_answer(answer, previous) or new_name(answer, previous)
    if named := _named_answer(previous, named, kind):
        return _resolution(turn, found, named, "previous answer")
    entity = main_name(previous)
    return _resolution(turn, found, entity, "previous question") if entity else None


def rewrite_problem(rewrite: str, resolution: Resolution | None) -> str | None:
    """Return why a model's rewrite still leans on the conversation, or None if it does not.

    A referring pronoun left in is a problem; so is, when the rules resolved the turn, a
    rewrite that does not name their referent (the wrong person, or nobody).
    """
    left = [m.group(0) for m in pronouns(rewrite)]
    if left:
        return f"the rewrite left {left[0]!r} unresolved"
    if resolution and not content_tokens(resolution.referent) <= content_tokens(rewrite):
        return f"the rewrite does not name {resolution.referent}"
    return None


def pronoun_kind(pronoun: str) -> Kind:
    """Return the kind of a referring pronoun ("her" -> "she", "its" -> "it")."""
    return _KINDS[pronoun.lower()]


def pronouns(text: str) -> list[re.Match[str]]:
    """Return the referring pronouns (not a title word "It", nor a dummy "it")."""
    return [
        m
        for m in _PRONOUN.finditer(text)
        if m.group(0).islower() or not text[: m.start()].strip(" \"'“")
    ]


def _resolution(turn: str, found: list[re.Match[str]], referent: str, source: Source) -> Resolution:
    parts, end = [], 0
    for m in found:
        word = m.group(0).lower()
        possessive = word in _POSSESSIVE or (word == "her" and _noun_follows(turn, m.end()))
        parts += [turn[end : m.start()], f"{referent}'s" if possessive else referent]
        end = m.end()
    text = without_conjunction("".join([*parts, turn[end:]]))
    return Resolution(text[:1].upper() + text[1:], found[0].group(0), referent, source)


def _noun_follows(text: str, end: int) -> bool:
    following = re.match(r"\s+([A-Za-z][\w'-]*)", text[end:])
    return following is not None and following.group(1).lower() not in NOT_NAMES


def _carried(previous: str, previous_turn: str) -> str:
    """Return what the previous standalone question put in place of the previous pronoun."""
    typed, meant = split_words(previous_turn), split_words(previous)
    same = [a.lower() == b.lower() for a, b in zip(typed, meant, strict=False)]
    head = same.index(False) if False in same else len(same)
    tail = 0
    while tail < min(len(typed), len(meant)) - head and (
        typed[-1 - tail].lower() == meant[-1 - tail].lower()
    ):
        tail += 1
    gap = typed[head : len(typed) - tail]
    if len(gap) == 1 and _PRONOUN.fullmatch(bare(gap[0])):
        put = " ".join(meant[head : len(meant) - tail]).rstrip(TRAILING)
        return re.sub(r"['’]s?$", "", put) if bare(gap[0]).lower() in _POSSESSIVE else put
    typed_words = content_tokens(previous_turn)
    new = [run for run in name_runs(previous) if not content_tokens(run) <= typed_words]
    return max(new, key=lambda run: len(run.split()), default="")


def _named_answer(previous: str, answer: str, kind: Kind) -> str:
    """Return the previous answer if the previous question asked for someone it can name."""
    words = split_words(previous)
    if not answer or len(words) < 2 or words[0].lower() not in ("who", "whom", "whose"):
        return ""
    return answer if kind in _PERSON_KINDS else ""
