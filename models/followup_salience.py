"""Which earlier name a pointing word most likely means, by salience alone (no model).

The `llm` follow-up rewriter (`models.followup_choice`) asks its model only where salience
cannot decide: a non-person "it" or "there" means the last exchange's most salient thing
(`recent_things`), a "he"/"she" after "Who ...?" the person answered or whom the same pronoun
was read as last turn (`recent_person`); the people a conversation has shown
(`known_people`) are listed first for a person's pronoun (`people_first`, `agreeing`).
"""

import re
from collections.abc import Sequence

from models.first_names import agrees, person_shaped
from models.followup import Exchange, understood
from models.followup_candidates import asks_for_thing, candidates
from models.followup_rules import pronoun_kind, pronouns
from models.names import TRAILING, name_runs, title_runs
from models.text import FUNCTION_WORDS

__all__ = [
    "agreeing",
    "known_people",
    "people_first",
    "recent_person",
    "recent_things",
]

_ASKS_WHO = re.compile(r"^(?:and\s+)?(?:who|whom)\b", re.IGNORECASE)
_AUXILIARY = re.compile(
    r"\b(?:do|does|did|can|could|will|would|should|shall|has|have|had)\s+$", re.IGNORECASE
)
_ADVERBS = frozenset({"first", "last", "again", "most", "least", "still", "once", "twice"})


def agreeing(options: Sequence[str], kind: str) -> list[str]:
    """Return the options a "he" or "she" may mean.

    Each person of a pair is listed apart ("Clara Voss and the porter Tobias Lund": one of
    them, never both), and no person whose first name says the other sex (`agrees`) is
    listed; all of them are when none agrees.
    """
    single = list(dict.fromkeys(p for o in options for p in _people_of(o)))
    return [o for o in single if agrees(o, kind)] or single


def _people_of(option: str) -> list[str]:
    """Return the people of a pair ("Ada Pell and the porter Tobias Lund"), else the option."""
    if " and " not in option:
        return [option]
    people = [n for part in option.split(" and ") for n in name_runs(part) if person_shaped(n)]
    return people if len(people) >= 2 else [option]


def people_first(options: Sequence[str], people: Sequence[str] = ()) -> list[str]:
    """Return the options with known `people` first, then those shaped like a person's name.

    A person's name has two or three capitalised words, without "the", a digit or a small
    word inside: "Supper at the Ferryman's House" and "the Lumo T2" are listed after "Anna
    Vey" for "she". "Mount Cairnvey" is shaped like one too, so the people the conversation
    has shown (`known_people`) come first of all.
    """
    known = [p for p in people if p in options]
    rest = sorted((o for o in options if o not in known), key=lambda o: not person_shaped(o))
    return known + rest


def recent_person(history: Sequence[Exchange], kind: str) -> str:
    """Return who a "he" or "she" means by the last exchange alone, or "" to ask the model.

    After "Who played the widow?" -> "Mina Crake", "she" is the person the answer named
    (unless the first name is a man's: after "Who did Ada Pell follow?" -> "Henry Dunn", "she"
    is left to the model); after a turn whose "he" was read as Jory Tallis, "he" is Jory
    Tallis again.
    """
    last = history[-1]
    if answered := _answered_person(last):
        return answered if agrees(answered, kind) else ""
    typed = {pronoun_kind(m.group(0)) for m in pronouns(last.question)}
    people = _read_as_people(last)
    return people[0] if kind in typed and len(people) == 1 else ""


def recent_things(history: Sequence[Exchange], kind: str) -> list[str]:
    """Return what a non-person "it" or "there" most likely means, most likely first.

    The last exchange's things. Its answer comes first when it names something and its
    question asked which or what thing ("What closed the gallery?" -> "Coppergate fire":
    "when was it?" means the fire), or where, for "there"; else the question's things do
    ("How tall is the Lantern Bearer?" -> "1.6 metres": "who made it?" means the statue;
    "What does the Quillfield Press print?" -> "field guides": "its" means the press). Of the
    question's, a name comes before what it owns ("the wingspan of the Ashcrest Warbler")
    and after the longer name it opens ("the Coppergate fire" before "the Coppergate"). Who
    the conversation has shown to be a person (`known_people`) is left out. Older turns are
    not offered: "it"
    points at the last thing talked about (a turn that reaches further back says so, "the
    bridge from my first question"). Empty when the last exchange names no thing, and the
    caller offers the whole conversation.
    """
    last = history[-1]
    question = understood(last)
    people = known_people(history)
    said = [o for o in [_answer_head(last)] if o]
    named = _names_first(candidates([(question, "")]), question)
    answer_first = bool(said and title_runs(said[0])) and asks_for_thing(question, kind)
    things = said + named if answer_first else named + said
    return [t for t in dict.fromkeys(things) if t and not any(p in t for p in people)]


def _names_first(phrases: Sequence[str], question: str) -> list[str]:
    """Return a question's phrases with names first, each after the longer name it opens.

    The longer name is a name and the lowercase word after it ("the Coppergate fire"), unless
    that word is the question's verb ("What does the Quillfield Press print?").
    """

    def owned(phrase: str) -> bool:
        return "'s " in phrase or " of " in phrase or not title_runs(phrase)

    ordered = sorted(phrases, key=owned)
    for longer in [p for p in ordered if not owned(p) and not _verb_after(p, question)]:
        shorter, _, word = longer.rpartition(" ")
        noun = word.isalpha() and word.islower()  # "Saltry in November 1788" is no such name
        if noun and shorter in ordered and ordered.index(shorter) < ordered.index(longer):
            ordered.remove(longer)
            ordered.insert(ordered.index(shorter), longer)
    return ordered


def _verb_after(phrase: str, question: str) -> bool:
    """Tell whether a phrase's last word is its question's verb or an adverb, not a noun.

    After "does", "did", "has" ... a name's next word is its verb when the question ends
    there or a small word follows ("How much film does the Harrow K3 take?", "How far has the
    Ormen Glacier retreated since 1900?"), not when a verb follows ("What batteries does the
    Finch-8 radio take?"); "first", "last" or "again" after it says when, not what.
    """
    if phrase.rpartition(" ")[2].lower() in _ADVERBS:
        return True
    at = question.find(phrase)
    if at < 0 or not _AUXILIARY.search(question[:at]):
        return False
    following = question[at + len(phrase) :].rstrip(TRAILING + " ").split()[:1]
    return not following or following[0].lower() in FUNCTION_WORDS


def known_people(history: Sequence[Exchange]) -> list[str]:
    """Return who the conversation has shown to be people, newest first.

    The answer to a "Who ...?" question ("Who made the first ascent?" -> "Ruth Kellaway")
    and the names a "he" or "she" was read as.
    """
    people: list[str] = []
    for exchange in reversed(history):
        people += [p for p in [_answered_person(exchange)] if p] + _read_as_people(exchange)
    return list(dict.fromkeys(people))


def _answered_person(exchange: Exchange) -> str:
    """Return the person a "Who ...?" question was answered with, or ""."""
    answer = _answer_head(exchange)
    return answer if _ASKS_WHO.match(understood(exchange)) and person_shaped(answer) else ""


def _answer_head(exchange: Exchange) -> str:
    """Return what an answer names first: a short answer whole, else its first name ("")."""
    return next(iter(candidates([("", exchange.answer)])), "")


def _read_as_people(exchange: Exchange) -> list[str]:
    """Return the names that a "he" or "she" the user typed was read as (by its standalone)."""
    typed = {m.group(0).lower() for m in pronouns(exchange.question)}
    if not typed & {"he", "him", "his", "she", "her", "hers"}:
        return []
    typed_text = exchange.question.lower()
    return [n for n in name_runs(exchange.standalone) if n.lower() not in typed_text]
