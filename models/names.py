"""Find what a question is about: its quoted title, or its longest run of capitalised words.

Shared by the pronoun rules (`models.followup_rules`): words are split on spaces, a leading "And" is
not part of the question, and punctuation after a word ends a name ("Gate?" in "Who directed
The Ninth Gate?") unless the word is an initial ("Michael C. Hall").
"""

import re

from models.text import FUNCTION_WORDS

__all__ = [
    "MONTHS",
    "ARTICLES",
    "NOT_NAMES",
    "REQUESTS",
    "TRAILING",
    "bare",
    "capital",
    "main_name",
    "name_runs",
    "past_verb",
    "split_words",
    "title_runs",
    "without_conjunction",
]

REQUESTS = frozenset("tell name list give explain describe show".split())
"""Verbs that open a request ("Name the ...", "Tell me ..."), never a name."""
NOT_NAMES = FUNCTION_WORDS | REQUESTS
"""Words that do not start a name (nor follow a possessive "her")."""
ARTICLES = ("the", "a", "an")
_CONJUNCTION = re.compile(r"^(and|so|but|also|then|ok|okay)\b[,\s]*", re.IGNORECASE)
_JOINERS = frozenset("of the in to a an and for on de del da von van der du la le".split())
_TITLE_JOINERS = _JOINERS | frozenset(
    "at over with by from under upon into near beyond across after before without".split()
)
"""Small words inside a title ("Evening at the Mill", "Girl with a Blue Kite"). Between two
names they also join what is not a title ("Kello at Dunmere"), so only the follow-up
candidates read titles this way; the rules keep `name_runs`."""
MONTHS = tuple(
    "January February March April May June July August September October November December".split()
)
"""The months, in order: not names of their own ("In May Kello sailed"), and part of a date."""
_MONTHS = frozenset(m.lower() for m in MONTHS)
_LEADING = "(\"“'‘"
_CONTRACTION = re.compile(r"['’](s|re|d|ll)$")
TRAILING = "?!.,;:)\"”'’"
_IRREGULAR_PAST = frozenset(
    "built made born known found held sold won begun written given taken seen shown done gone "
    "kept led lost paid sent spent told thought brought bought caught taught fought sought "
    "hung laid meant said shut struck sung sunk torn worn thrown drawn flown grown blown "
    "chosen frozen stolen broken spoken driven ridden risen hidden eaten fallen forgotten dug "
    "burnt fed fled bred dealt slept swept began grew ran flew sank sang wore tore threw drew "
    "chose froze broke drove rode wrote hid ate came became went gave took knew got stood".split()
)
"""Past forms that do not end in "-ed": "When was the Orrin Mill built?". Those that are
also common nouns ("rose", "saw", "fell", "felt", "left", "spoke", "stole", "met", "bent",
"lent") are left out: "the Orrin rose" is a rose."""


def without_conjunction(turn: str) -> str:
    """Return the turn without a leading "And", "So", "But" ... (the whole turn if that is all)."""
    return _CONJUNCTION.sub("", turn.strip()) or turn.strip()


def split_words(text: str) -> list[str]:
    """Return the words of a question, a leading conjunction left out."""
    return without_conjunction(text).split()


def bare(word: str) -> str:
    """Return a word without the punctuation around it."""
    return word.lstrip(_LEADING).rstrip(TRAILING)


def capital(word: str) -> bool:
    """Tell whether a word starts with a capital letter."""
    return word[:1].isupper()


def main_name(question: str) -> str:
    """Return the question's name: its longest run of capitalised words, or ""."""
    return max(name_runs(question), key=lambda run: len(run.split()), default="")


def name_runs(text: str, *, joiners: frozenset[str] = _JOINERS) -> list[str]:
    """Return the runs of capitalised words, with inner joiners and numbers next to them.

    "the" just before a run is kept ("the Battle of Manila"), a run may start with "The" or
    "A" ("A Walk to Remember") but not with another function word ("Which", "In"), and a
    possessive "'s" at its end is dropped.
    """
    words = split_words(text)
    runs: list[str] = []
    i = 0
    while i < len(words):
        end = _run_end(words, i, joiners)
        if end > i:
            start = i - 1 if i > 0 and words[i - 1].lower() == "the" else i
            run = " ".join(words[start:end]).rstrip(TRAILING)
            runs.append(re.sub(r"['’]s$", "", run))
        i = max(end, i + 1)
    return runs


def title_runs(text: str) -> list[str]:
    """Return the runs of capitalised words joined also across a title's small words.

    "Who painted Morning over Sorrel?" -> ["Morning over Sorrel"], where `name_runs` gives
    "Morning" and "Sorrel".
    """
    return name_runs(text, joiners=_TITLE_JOINERS)


def _run_end(words: list[str], start: int, joiners: frozenset[str]) -> int:
    """Return where a run of capitalised words starting at `start` ends (`start` if none)."""
    end = start
    for i in range(start, len(words)):
        if not _fits(words, i, start, joiners):
            break
        end = i + 1
        initial = len(bare(words[i])) == 1 and words[i].endswith(".")  # "Michael C. Hall"
        if bare(words[i]) != words[i].lstrip(_LEADING) and not initial:
            break  # "Gate?" or "Alien," ends the run
    return end


def _fits(words: list[str], i: int, start: int, joiners: frozenset[str]) -> bool:
    """Tell whether word `i` continues (or, at `start`, opens) a run of capitalised words."""
    word = bare(words[i])
    lower = _CONTRACTION.sub("", word.lower())  # "What's" is "What", not a name
    number = word[:1].isdigit() and _capital_at(words, i + 1 if i == start else i - 1)
    if i == start:
        article = lower in ARTICLES and _capital_at(words, i + 1)
        return number or (capital(word) and (lower not in NOT_NAMES or article))
    joiner = lower in joiners and _capital_after_joiners(words, i, joiners)
    return capital(word) or joiner or number


def _capital_after_joiners(words: list[str], i: int, joiners: frozenset[str]) -> bool:
    """Tell whether joiners from `i` on lead to a capitalised word ("Coton in the Elms").

    A month is a date, not the rest of a name: "Saltry in November 1788" is "Saltry".
    """
    while i < len(words) and words[i].lower() in joiners:
        i += 1
    return _capital_at(words, i) and bare(words[i]).lower() not in _MONTHS


def _capital_at(words: list[str], i: int) -> bool:
    return 0 <= i < len(words) and capital(bare(words[i]))


def past_verb(word: str) -> bool:
    """Tell whether a lowercase word is a past tense or participle ("built", "opened").

    After a name, such a word is the question's verb ("When was the Orrin Mill built?"), not
    part of the name, and so is one with a prefix ("rebuilt"). "-eed" words ("seed", "reed")
    and short "-ed" words ("bed", "shed") are nouns.
    """
    word = word.lower()
    regular = len(word) > 4 and word.endswith("ed") and not word.endswith(("eed", "shed"))
    stem = re.sub(r"^(?:re|un|over|out|mis)(?=[a-z]{3})", "", word)  # "rebuilt", "outgrew"
    return regular or word in _IRREGULAR_PAST or stem in _IRREGULAR_PAST
