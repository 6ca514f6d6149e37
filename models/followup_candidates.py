"""What a follow-up may point back to, what in it points back, and the name put in its place.

`candidates` lists the names and noun phrases of the earlier turns, newest first (the last
answer's, then the question's, then older turns'), so a model can be asked to *pick* the
referent instead of writing it. `pointer` finds what in the new turn points back: a pronoun
("she", "its"), a pointing phrase ("that town", "the bridge we talked about", "the club" when
a candidate is a club) or a place "there". `substitute` puts the chosen referent in its
place. No model here: plain functions over the conversation's own text.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from models.followup_rules import pronoun_kind, pronouns
from models.names import (
    ARTICLES,
    NOT_NAMES,
    TRAILING,
    name_runs,
    past_verb,
    title_runs,
    without_conjunction,
)
from models.text import AUXILIARIES, FUNCTION_WORDS

__all__ = [
    "BACK_TO",
    "Pointer",
    "asks_for_thing",
    "candidates",
    "head_noun",
    "pointer",
    "reaches_back",
    "substitute",
]

_MAX_CANDIDATES = 8
_TURNS = 3
_SHORT_ANSWER_WORDS = 4
_POSSESSIVE = frozenset({"his", "hers", "its", "their", "theirs"})
_ABOUT_TALK = (
    r"(?:\s+(?:that\s+|which\s+)?(?:we|you|i)\s+(?:just\s+|first\s+|were\s+|last\s+)?"
    r"(?:talked about|talking about|mentioned|spoke about|discussed|said|named|asked about)"
    r"(?:\s+(?:first|earlier|before|last))?"
    r"|\s+(?:from|in)\s+(?:my|your|the)\s+(?:first|last|previous|earlier)\s+(?:question|answer))?"
)
_THERE = re.compile(
    r"(?<!is )(?<!are )(?<!was )(?<!were )\bthere\b(?!\s+(?:is|are|was|were|be|been)\b)",
    re.IGNORECASE,
)
"""A place "there", not the "there" of "is there a ferry?" or "there was a flood"."""
BACK_TO = re.compile(
    r"^(?:sorry|well|ok|okay|hmm|oh)?[,\s]*(?:(?:going|coming|getting)\s+)?back\s+to\s+"
    r"(?P<what>[^:,?]+)[:,]\s*",
    re.IGNORECASE,
)
""""Going back to the flood, ...": what the turn goes back to is group `what`."""
_INTERJECTION = re.compile(r"^(?:sorry|well|hmm|oh|ok|okay)\b[,\s]*", re.IGNORECASE)
_PREPOSITION = re.compile(r"^(?:at|in|on|from|by|to|near)\s+", re.IGNORECASE)
"""A short answer's leading preposition ("At the Corvane Institute") is not part of the name."""
_WORD = re.compile(r"[A-Za-z][\w'’-]*")
_PHRASE_JOINERS = frozenset({"of", "in", "on", "at"})
_CLAUSE_WORDS = FUNCTION_WORDS - frozenset(ARTICLES) - _PHRASE_JOINERS - {"and", "for", "with"}
"""A short answer holding one of these ("she", "was", "it") is a clause, not a noun phrase."""
_QUOTES = "\"“”'‘’ "
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]")
_ASKED_NOUN = re.compile(
    r"^(?:what|which)\s+(?:(?:kind|type|sort)s?\s+of\s+)?([a-z][\w-]*)\s+"
    r"(?:does|did|do|is|was|are|were|has|had|can|could|will|would)\s+(.+)$",
    re.IGNORECASE,
)
""""What batteries does the Finch-8 radio take?": the thing asked for belongs to the name."""
_OWNED = re.compile(r"((?:the\s+)?[A-Z][\w.-]*(?:\s+[A-Z0-9][\w.-]*)*)['’]s\s+([a-z][\w-]*)")
_DISLOCATED = re.compile(r"^(?:and\s+|so\s+)?(the\s+[^,?]+?)\s*,\s*(\S.*)$", re.IGNORECASE)
""""the painting from my first question, who painted it?": the phrase says what "it" is."""
_PARTICLES = frozenset("down up out off over away in on back through about around".split())
_SUBJECT_THAT = re.compile(r"\b(?:do|does|did|can|could|will|would)\s+(that|this)\b", re.IGNORECASE)
""""When did that burn down?": after such a verb "that" is the subject itself, not "that <noun>"."""


@dataclass(frozen=True)
class Pointer:
    """What in a turn points back into the conversation."""

    word: str
    """As typed: "she", "its", "that town", "there"."""
    kind: str
    """"he", "she", "it", "they" for a pronoun, "that" for a phrase, "there" for a place."""


def candidates(history: Sequence[tuple[str, str]], *, limit: int = _MAX_CANDIDATES) -> list[str]:
    """Return the names and noun phrases of earlier (question, answer) pairs, newest first.

    A short answer is a candidate whole ("Marta Kello", "wooden toll bridge"); a sentence
    answer and the questions give their capitalised names ("the Halvard Bridge") and their
    definite noun phrases ("the boathouse of the Tallis Rowing Club", "the Finch-8 radio").
    Bare numbers and measures ("1938", "87 metres") name nothing a turn points at.
    """
    found: list[str] = []
    for question, answer in reversed(history[-_TURNS:]):
        found += _answer_phrases(answer) + _phrases(question)
    seen: set[str] = set()
    out = []
    for phrase in (f.strip(_QUOTES) for f in found):
        key = phrase.lower()
        if key not in seen and not phrase[:1].isdigit():
            seen.add(key)
            out.append(phrase)
    return out[:limit]


def _answer_phrases(answer: str) -> list[str]:
    """Return a short answer whole (and its names), else a sentence answer's phrases.

    "Marta Kello", "wooden toll bridge" and "Coppergate fire" are short answers; "She
    designed it" is a clause (a word such as "she" or "it"), so only its names count.
    """
    text = _PREPOSITION.sub("", answer.strip().rstrip(TRAILING).strip())
    words = text.split()
    names = title_runs(text)
    if words and len(words) <= _SHORT_ANSWER_WORDS:
        if not names or names == [text]:
            return [text]
        if not _CLAUSE_WORDS & {w.lower() for w in words}:
            return [text, *_phrases(answer)]
    return _phrases(answer)


def _phrases(text: str) -> list[str]:
    """Return a text's quoted titles, names, "the" phrases and what a name owns.

    A title with small words comes whole ("Morning over Sorrel", not "Morning" and
    "Sorrel"); a "the" name comes also with the lowercase word after it ("the Finch-8
    radio").
    """
    runs = title_runs(text)
    out: list[str] = _QUOTED.findall(text) + _owned(text, runs)
    for run in runs:
        out.append(run)
        after = re.search(rf"{re.escape(run)}\s+([a-z][\w-]*)(?=[\s?!.,;:]|$)", text)
        if run.startswith("the ") and after and not _verb_at(text, after.start(1)):
            out.append(f"{run} {after.group(1)}")
    out += _definite(text)
    return out


def _verb_at(text: str, start: int) -> bool:
    """Tell whether the lowercase word at `start` is the clause's verb, not a noun of a name.

    A small word ("is", "in") is never a name's noun; a past form ("built", "opened") is
    the verb when the clause ends after it or a small word follows ("When was the Orrin Mill
    built?", "What was the Orrin Mill built for?"), not before a noun ("the old walled
    garden").
    """
    words = re.findall(r"[A-Za-z][\w'’-]*|[?!.,;:]", text[start:])
    if not words or words[0].lower() in FUNCTION_WORDS:
        return bool(words)
    following = words[1] if len(words) > 1 else "?"
    closes = not following[0].isalpha() or following.lower() in FUNCTION_WORDS
    return past_verb(words[0]) and closes


def _owned(text: str, runs: Sequence[str]) -> list[str]:
    """Return what a name owns: "the Finch-8 radio's batteries", said so or asked for.

    "What batteries does the Finch-8 radio take?" asks for the radio's batteries, and a
    later "How long do they last?" means them, not the radio.
    """
    out = [f"{name}'s {noun}" for name, noun in _OWNED.findall(text) if noun not in NOT_NAMES]
    asked = _ASKED_NOUN.match(without_conjunction(text).strip())
    if asked and asked.group(1).lower() not in NOT_NAMES:
        if owner := _owner(asked.group(2), runs):
            out.append(f"{owner}'s {asked.group(1)}")
    return out


def _owner(rest: str, runs: Sequence[str]) -> str:
    """Return the longest name `rest` opens with, and its noun ("the Finch-8 radio"), or ""."""
    name = max((r for r in runs if rest.startswith(r)), key=len, default="")
    after = re.match(rf"{re.escape(name)}\s+([a-z][\w-]*)\s", rest) if name else None
    if not (after and name.startswith("the ") and not _verb_at(rest, after.start(1))):
        return name
    following = rest[len(name) + 1 :].split()[1:2]
    noun_next = bool(following) and following[0].rstrip(TRAILING).islower()
    return f"{name} {after.group(1)}" if noun_next else name  # not "the Finch-8" alone


def _definite(text: str) -> list[str]:
    """Return "the <lowercase words>" phrases, with an "of/in <Name>" that follows them."""
    found = list(_WORD.finditer(text))
    words = [m.group(0) for m in found]
    out = []
    for i, word in enumerate(words):
        if word.lower() != "the" or i + 1 >= len(words) or not words[i + 1].islower():
            continue
        end = i + 1
        while end < len(words) and words[end].islower() and words[end] not in NOT_NAMES:
            if end > i + 1 and _verb_at(text, found[end].start()):
                break  # "When was the boathouse built?": "the boathouse"
            end += 1
        if end == i + 1 or end - i > 3:
            continue
        phrase = " ".join(words[i:end])
        following = " ".join(words[end:])
        names = name_runs(following) if end < len(words) else []
        joined = words[end].lower() in _PHRASE_JOINERS if end < len(words) else False
        if joined and names and following.split(None, 1)[-1].startswith(names[0]):
            out.append(f"{phrase} {words[end]} {names[0]}")
        out.append(phrase)
    return out


_ASKS_WHICH = re.compile(r"^(?:and\s+)?(?:what|which)\b", re.IGNORECASE)
_ASKS_KIND = re.compile(
    r"^(?:and\s+)?what\s+(?:(?:kind|type|sort)s?\s+of\s+)?[a-z][\w-]*\s+(?:do|does|did)\b",
    re.IGNORECASE,
)
""""What batteries does the Finch-8 radio take?" asks what kind: its answer is no new thing."""
_ASKS_WHERE = re.compile(
    r"^(?:and\s+)?(?:where|which\s+(?:town|city|village|island|place))\b", re.IGNORECASE
)
_DEFINES = re.compile(r"^(?:[Aa]nd\s+)?[Ww]hat\s+(?:is|are|was|were)\s+(?:the\s+)?[A-Z]")
""""What is Queen of the Fen?" asks what a name is: its answer describes it, names nothing new.
Case-sensitive for the capital that opens the name."""


def asks_for_thing(question: str, kind: str) -> bool:
    """Tell whether a question's answer is the thing a later "it" (or "there") means.

    "Which painting was stolen?", "Which office does Priya Dall work from?" and "What closed
    the gallery?" ask for a thing, and "it" then means the answer. "Who carved it?", "How tall
    is it?" and "When ...?" ask about the question's thing, which "it" keeps meaning, and so
    does "What batteries does the Finch-8 radio take?": "what" and a noun before "does" asks
    what kind ("AA"), not for a thing of its own. A "there" means the place a "where",
    "what" or "which" question answered.
    """
    text = question.strip()
    if _DEFINES.match(text):
        return False
    if kind == "there":
        return bool(_ASKS_WHERE.match(text) or _ASKS_WHICH.match(text))
    return bool(_ASKS_WHICH.match(text)) and not _ASKS_KIND.match(text)


def reaches_back(turn: str) -> bool:
    """Tell whether a turn says it goes back in the conversation ("back to the flood, ...")."""
    text = turn.strip()
    return bool(BACK_TO.match(text) or re.search(_ABOUT_TALK[:-1], text, re.IGNORECASE))


def head_noun(phrase: str) -> str:
    """Return a phrase's last word, lower-cased ("the Halvard Bridge" -> "bridge")."""
    words = _WORD.findall(phrase)
    return words[-1].lower() if words else ""


def pointer(turn: str, options: Sequence[str] = ()) -> Pointer | None:
    """Return what in a turn points back: a pronoun, a pointing phrase, or a place "there".

    A pointing phrase is "that/this <noun>", "the <noun> we talked about", or "the <noun>"
    whose noun ends one of `options` ("the club" when "the Tallis Rowing Club" was said).
    """
    text = BACK_TO.sub("", turn.strip())
    if dislocated := _dislocated(text, options):
        said, rest = dislocated
        return Pointer(said, pronoun_kind(pronouns(rest)[0].group(0)))
    if found := pronouns(text):
        return Pointer(found[0].group(0), pronoun_kind(found[0].group(0)))
    if phrase := _pointing_phrase(text, options):
        return Pointer(phrase.group(0), "that")
    if there := _THERE.search(text):
        return Pointer(there.group(0), "there")
    return None


def _bare_subject(after: str) -> bool:
    """Tell whether "that" is the subject itself ("did that burn down?", "did that open to").

    After a bare "that" comes its verb, then a particle, a small word or nothing; after
    "that plant" comes a verb ("does that plant grow?").
    """
    words = re.findall(r"[a-z]+", after.lower())
    return len(words) < 2 or words[1] in _PARTICLES | FUNCTION_WORDS


def _dislocated(text: str, options: Sequence[str]) -> tuple[str, str] | None:
    """Return a leading pointing phrase and the question after it, whose pronoun it names."""
    m = _DISLOCATED.match(text.strip())
    if m and _pointing_phrase(m.group(1), options) and pronouns(m.group(2)):
        return m.group(1), m.group(2)
    return None


def _pointing_phrase(text: str, options: Sequence[str]) -> re.Match[str] | None:
    if (subject := _SUBJECT_THAT.search(text)) and _bare_subject(text[subject.end() :]):
        return re.compile(r"\b" + subject.group(1) + r"\b").search(text, subject.start(1))
    said = rf"\b(?:that|this)\s+[a-z][\w-]*(?![\w-]){_ABOUT_TALK}"
    talked = rf"\bthe\s+(?:[a-z]+\s+)?[a-z][\w-]*(?![\w-]){_ABOUT_TALK[:-1]}"
    for pattern in (talked, said):
        if (m := re.search(pattern, text, re.IGNORECASE)) and m.group(0).split()[-1] not in (
            AUXILIARIES
        ):
            return m
    heads = {head_noun(o) for o in options if " " in o} - FUNCTION_WORDS
    for m in re.finditer(r"\bthe\s+([a-z][\w-]*)(?=\s*[?!.,;:]|\s*$|\s+([a-z]+)\b)", text):
        if m.group(1) in heads and (m.group(2) is None or m.group(2) in FUNCTION_WORDS):
            return m
    return None


def substitute(turn: str, referent: str, options: Sequence[str] = ()) -> str:
    """Return the turn with what points back replaced by `referent`, or "" if nothing does.

    Every pronoun of the pointer's kind is replaced ("its" takes "'s"), a pointing phrase or
    "there" ("in <referent>") once. A leading "And", "Sorry," or "Back to the club:" is
    dropped: the rewrite stands alone.
    """
    text = BACK_TO.sub("", turn.strip())
    found = pointer(text, options)
    if found is None or not referent:
        return ""
    if dislocated := _dislocated(text, options):
        text = _replace_pronouns(dislocated[1], found.kind, referent)
    elif found.kind == "that":
        m = _pointing_phrase(text, options)
        assert m is not None  # noqa: S101 - `pointer` just found it
        text = text[: m.start()] + referent + text[m.end() :]
    elif found.kind == "there":
        m = _THERE.search(text)
        assert m is not None  # noqa: S101 - `pointer` just found it
        text = text[: m.start()] + f"in {referent}" + text[m.end() :]
    else:
        text = _replace_pronouns(text, found.kind, referent)
    text = _INTERJECTION.sub("", without_conjunction(text)).strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith("?") else text.rstrip(".") + "?"


def _replace_pronouns(text: str, kind: str, referent: str) -> str:
    parts, end = [], 0
    for m in pronouns(text):
        if pronoun_kind(m.group(0)) != kind:
            continue
        word = m.group(0).lower()
        following = re.match(r"\s+([A-Za-z][\w'-]*)", text[m.end() :])
        noun_next = following is not None and following.group(1).lower() not in NOT_NAMES
        possessive = word in _POSSESSIVE or (word == "her" and noun_next)
        parts += [text[end : m.start()], f"{referent}'s" if possessive else referent]
        end = m.end()
    return "".join([*parts, text[end:]])
