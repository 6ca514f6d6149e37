"""Which of the last exchange's things an "it", "they" or "there" can mean, by English alone.

Three facts of the language narrow the things `models.followup_choice` ranks: a "there" is
a place, and a name the conversation put after "at", "in" or "near" is one ("built at
Tarrock"); a name said short in an answer ("the Fern House") is the thing the question named
in full ("the Fern House at Cawsley"); and a pronoun that is not a possessive cannot mean a
noun phrase of its own clause ("when did the team leave it": not the team). And a full
question that names, even in lower case, a name the conversation said, names its own topic.
No model here.
"""

import re
from collections.abc import Iterable, Sequence

from models.first_names import person_shaped
from models.followup import points_back
from models.followup_candidates import head_noun, pointer
from models.names import ARTICLES, name_runs, title_runs

__all__ = ["described", "fuller", "names_said_topic", "outside_clause", "places_first", "said_back"]

_PLACE_BEFORE = r"\b(?:at|in|near|from|to|into)\s+"
_CLAUSE_BREAK = re.compile(
    r",|\b(?:when|while|after|before|because|since|until|if|that|which|who|whom|where|and)\b",
    re.IGNORECASE,
)
_DESCRIBED = re.compile(r"^the\s+[a-z]+\s+(?:who|that)\s+([a-z]+)\b", re.IGNORECASE)
""""the woman who ran the company": a person by what an earlier "Who ran ...?" asked."""
_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")
_POSSESSIVES = frozenset({"its", "his", "her", "hers", "their", "theirs"})


def places_first(things: Sequence[str], texts: Iterable[str]) -> list[str]:
    """Return `things` with the places first: those the texts name after "at", "in" ...

    "What was the Puffin?" -> "a screw steamer built at Tarrock": a "there" means Tarrock.
    """
    said = list(texts)

    def place(thing: str) -> bool:
        pattern = _PLACE_BEFORE + re.escape(thing) + r"\b"
        return any(re.search(pattern, text) for text in said)

    return sorted(things, key=lambda t: not place(t))


def fuller(name: str, phrases: Sequence[str]) -> str:
    """Return the fuller form a phrase gives `name`, else `name`.

    An answer says "the Fern House" where the question said "the Fern House at Cawsley":
    the same thing, by the name the user gave it.
    """
    longer = (p for p in phrases if re.match(rf"{re.escape(name)}\s+(?:at|in)\s+[A-Z]", p))
    return next(longer, name)


def outside_clause(turn: str, word: str, things: Sequence[str]) -> list[str]:
    """Return the things a pronoun `word` of `turn` may mean: none its own clause names.

    A pronoun that is not a possessive cannot mean a noun phrase of its clause ("when did
    the team leave it", "how far is it from the bridge"): a thing named there whole, or by
    "the" and its last word, is left out, with what it cut short ("the Scarth Fell" of
    "the Scarth Fell team"). A possessive may ("the team and its base"), and so
    is every thing kept for one. All the things are kept when none would be left.
    """
    if word.lower() in _POSSESSIVES:
        return list(things)
    clause = _clause_of(turn, word).lower()
    named = [
        t.lower()
        for t in things
        if t.lower() in clause or re.search(rf"\bthe\s+{re.escape(_head(t))}\b", clause)
    ]
    kept = [t for t in things if not any(t.lower() in n for n in named)]
    return kept or list(things)


def _clause_of(turn: str, word: str) -> str:
    """Return the clause of `turn` that holds the pronoun `word` (the whole turn if not found)."""
    at = re.search(rf"\b{re.escape(word)}\b", turn, re.IGNORECASE)
    if not at:
        return turn
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(turn) if m.start() > 0]
    start = max((b for b in breaks if b < at.start()), default=0)
    end = min((b for b in breaks if b > at.end()), default=len(turn))
    return turn[start:end]


def names_said_topic(turn: str, said: Iterable[str]) -> bool:
    """Tell whether a full question names its topic in lower case, by a name already `said`.

    "what colour was the weddle bridge band's uniform" names the Weddle Bridge band as "Who
    conducted the Weddle Bridge band?" would: typed in lower case, it is known as a name
    because the conversation said it. A turn that points back (`points_back`, `pointer`:
    "its", "there", "and ...", a fragment) does not stand alone, whatever it names.
    """
    if points_back(turn) or pointer(turn):
        return False
    words = " " + " ".join(_WORD.findall(turn.lower())) + " "
    for text in said:
        for name in title_runs(text):
            bare = name.split(None, 1)[-1] if name.split()[0].lower() in ARTICLES else name
            if f" {bare.lower()} " in words or f" {bare.lower()}'s " in words:
                return True
    return False


def _head(phrase: str) -> str:
    """Return a phrase's head noun: "base" of "the first base of the Harwick crew"."""
    return head_noun(phrase.split(" of ", 1)[0])


def described(phrase: str, exchanges: Sequence[tuple[str, str]]) -> str:
    """Return whom "the woman who ran the mill" means: the answer to "Who ran ...?", or "".

    `exchanges` are the earlier (question, answer) pairs, oldest first; the newest "Who
    <verb> ...?" with the phrase's verb is the one the phrase restates, and its answer's
    person ("the mill owner Gideon Harte" -> "Gideon Harte") is whom it means.
    """
    m = _DESCRIBED.match(phrase.strip())
    if not m:
        return ""
    asked = re.compile(rf"^(?:and\s+)?who\s+{re.escape(m.group(1))}\b", re.IGNORECASE)
    for question, answer in reversed(exchanges):
        if asked.match(question.strip()):
            people = [n for n in name_runs(answer) if person_shaped(n)]
            return people[0] if people else ""
    return ""


def said_back(phrase: str, options: Sequence[str]) -> str:
    """Return the one option a "back to the <noun>" phrase names by its noun, or "".

    "back to the lily" means "the Cawsley moon lily", not "the Lily House": the option
    whose last word is the noun, when exactly one is and it holds a name.
    """
    words = phrase.lower().split()
    if len(words) != 2 or words[0] != "the":
        return ""
    found = [o for o in options if head_noun(o) == words[1]]
    named = len(found) == 1 and any(w[:1].isupper() for w in found[0].split()[1:])
    return found[0] if named else ""  # a name, not a description ("The first press")
