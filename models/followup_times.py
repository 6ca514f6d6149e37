"""What a follow-up's "that year", "then" or "at the time" means: the time the conversation named.

"Who ran the mill that year?" after an answer "1884" asks about 1884. A model asked what
"that year" means tends to pick a noun phrase from the list it is shown, so the time is put
back in code, as "in 1884" ("on 3 May 1884" for "that day"). The time is the one stated most
recently: the last answer's, then the last question's, then older turns', newest first; "the
year you said first" takes the oldest. A turn whose conversation names no time, or that goes
back to something other than a time ("back to the flood, who ran it then?"), is left to the
other readings.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from models.followup import Exchange, without_context
from models.followup_candidates import BACK_TO
from models.names import MONTHS, TRAILING, without_conjunction
from models.text import FUNCTION_WORDS

__all__ = ["TimePointer", "dated", "named_time", "time_pointer"]

_MONTH = f"(?:{'|'.join(MONTHS)})"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_TIME = re.compile(
    rf"(?P<date>{_DAY}\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}|{_MONTH}\s+{_DAY},?\s+\d{{4}})\b"
    rf"|(?P<month>{_MONTH}\s+\d{{4}})\b"
    r"|(?P<decade>\b(?:1\d|20)\d0s)\b"
    r"|(?<![\d,.£$€#])(?P<year>\b(?:1\d|20)\d\d)\b(?![,.]\d)"
)
"""A date ("3 May 1884", "May 3, 1884"), a month ("May 1884"), a decade or a year."""
_POINTER = re.compile(
    r"\b(?:(?P<prep>in|on|at|during|by|since|until|till|before|after|from|of)\s+)?"
    r"(?:(?:that|the\s+same)\s+(?P<unit>year|day|date|month|decade|time)|(?P<the>the\s+time)"
    r"|(?P<then>then))(?![\w'’])",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"\s*(?:[?!.,;:]|$)")
_TIME_WORD = re.compile(r"\b(?:year|date|day|month|decade|time)\b", re.IGNORECASE)
_FIRST = re.compile(r"\b(?:first|earliest)\b", re.IGNORECASE)
_NATURAL = frozenset({"in", "on", "at"})
"""Prepositions the time's own ("in 1884", "on 3 May 1884") replaces."""


@dataclass(frozen=True)
class TimePointer:
    """Where in a turn a time is pointed at, and what kind of time it wants."""

    start: int
    end: int
    preposition: str
    """A preposition that stays ("since then" -> "since 1884"), "" otherwise."""
    unit: str
    """"year", "day", "month", "decade", or "time" (whatever time was named)."""


def time_pointer(turn: str) -> TimePointer | None:
    """Return the first pointer at a time in a turn, or None.

    "that year", "the same day", "that month", "that decade", "that time", "at the time" and
    a "then" that ends its clause ("who ran it then?", "since then"). "At the time" and
    "then" followed by more of the clause ("at the time of the fire", "then what?") point
    at no time of their own, and neither does a bare "and then?".
    """
    for m in _POINTER.finditer(turn):
        at_end = bool(_CLAUSE_END.match(turn, m.end()))
        prep = (m.group("prep") or "").lower()
        if m.group("the") and not (prep == "at" and at_end):
            continue
        if m.group("then") and (not at_end or _bare_then(turn[: m.start("then")])):
            continue
        unit = (m.group("unit") or "time").lower()
        kept = "" if prep in _NATURAL or m.group("the") else prep
        return TimePointer(m.start(), m.end(), kept, unit)
    return None


def _bare_then(before: str) -> bool:
    """Tell whether a "then" has nothing before it but "and" or "what" ("and then?")."""
    return not re.sub(r"\b(?:and|what|so|but)\b", "", before, flags=re.IGNORECASE).strip(" ,")


def named_time(texts: Sequence[str], unit: str) -> str:
    """Return the first time in `texts` a `unit` pointer can mean, with its preposition.

    "that day" wants a date ("on 3 May 1884"), "that month" a month or a date ("in May
    1884"), "that year" any time with a year ("in 1884"), "that decade" a decade or a year
    ("in the 1880s"); "then" and "at the time" take the time as said. "" when none fits.
    """
    for text in texts:
        for m in _TIME.finditer(text):
            if m.group("year") and _counts(text, m):
                continue  # "1200 sheep": a number, not a year
            if found := _as_unit(m, unit):
                return found
    return ""


def _counts(text: str, m: re.Match[str]) -> bool:
    """Tell whether a four-digit number counts things ("1500 sheep"), not a year.

    A noun after it makes it a count, unless "the" comes before ("the 1884 flood").
    """
    following = re.match(r"\s+([a-z][\w-]*)", text[m.end() :])
    before = text[: m.start()].split()[-1:]
    noun = bool(following) and following.group(1) not in FUNCTION_WORDS  # type: ignore[union-attr]
    return noun and [w.lower() for w in before] != ["the"]


def _as_unit(m: re.Match[str], unit: str) -> str:
    """Return the matched time as a `unit` pointer means it, "" when it does not fit."""
    said = re.sub(r"\s+", " ", m.group(0))
    year = re.search(r"\d{4}", said)
    match unit:
        case "day" | "date":
            return f"on {said}" if m.group("date") else ""
        case "month":
            month = re.search(_MONTH, said)
            return f"in {month.group(0)} {year.group(0)}" if month and year else ""
        case "year":
            return f"in {year.group(0)}" if year else ""
        case "decade":
            return f"in the {year.group(0)[:3]}0s" if year else ""
        case _:
            return f"on {said}" if m.group("date") else f"in {said}"


def dated(turn: str, history: Sequence[Exchange]) -> tuple[str, str] | None:
    """Return the turn with its time pointer replaced by the time named, and what was read.

    ("Who ran the mill in 1884?", "that year = 1884"), or None when the turn points at no
    time, the conversation named none, or the turn goes back to something else.
    """
    text = without_conjunction(turn.strip())
    oldest = False
    if back := BACK_TO.match(text):
        if not _TIME_WORD.search(back.group("what")):
            return None  # "back to the flood, ...": the flood's time, not the latest
        oldest = bool(_FIRST.search(back.group("what")))
        text = text[back.end() :]
    found = time_pointer(text)
    if found is None:
        return None
    time = named_time(_texts(history, oldest=oldest), found.unit)
    if not time:
        return None
    put = f"{found.preposition} {time.split(' ', 1)[1]}" if found.preposition else time
    question = f"{text[: found.start]}{put}{text[found.end :]}".strip().rstrip(TRAILING)
    said = f"{text[found.start : found.end].strip().lower()} = {time.split(' ', 1)[1]}"
    return f"{question[:1].upper()}{question[1:]}?", said


def _texts(history: Sequence[Exchange], *, oldest: bool) -> list[str]:
    """Return where a time is looked for: answer, then question, newest exchange first."""
    if oldest:
        return [t for e in history for t in (without_context(e.standalone), e.answer)]
    return [t for e in reversed(history) for t in (e.answer, without_context(e.standalone))]
