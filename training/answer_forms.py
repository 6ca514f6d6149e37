"""Crude answer forms for the support judge's training pairs: types, typed spans, sentences.

- `answer_type`: yes/no, date (a year, or a month with a year), number, name (every word
  capitalised), or other. Crude on purpose: it only has to pick a plausible wrong answer.
- `typed_spans`: the spans of a text that have a type (dates, numbers, capitalised names), the
  candidates for a reader that copies the wrong name or year out of the right passage.
- `phrase`: the answer as the short sentence a reader writes ("The answer is X.", or the
  question turned into a statement where its shape allows: "who wrote Hamlet" -> "X wrote
  Hamlet.").
"""

import random
import re
from typing import Literal

from models.text import content_tokens

__all__ = ["AnswerType", "answer_type", "phrase", "typed_spans"]

AnswerType = Literal["yesno", "date", "number", "name", "other"]

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
_YEAR = r"(?:1[0-9]{3}|20[0-9]{2})"
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+)?{_MONTH}\s+(?:\d{{1,2}},?\s+)?{_YEAR}\b|\b{_YEAR}\b", re.IGNORECASE
)
_NUMBER = re.compile(
    r"\b\d[\d,.]*\b(?:\s+(?:million|billion|thousand|hundred|percent))?", re.IGNORECASE
)
_NUMBER_WORD = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
    r"fifty|hundred|thousand|million|billion)\b",
    re.IGNORECASE,
)
_CONNECTORS = frozenset("of the de da del di von van der la le and &".split())
_CONNECTOR = rf"(?:{'|'.join(sorted(_CONNECTORS))})"
_NAME_WORD = r"[A-Z](?:\.|[\w'-]*)"  # a capitalised word, or an initial such as "B."
_NAME = re.compile(rf"\b{_NAME_WORD}(?:\s+(?:{_CONNECTOR}\s+)*{_NAME_WORD}){{0,4}}")
_ECHO = re.compile(r"^\s*(?:who\s+(?!did\b|does\b|do\b)|what\s+(?=(?:is|was|are|were)\b))(.+)$")
_TEMPLATES = ("The answer is {a}.", "It is {a}.", "It was {a}.", "{a} is the answer.")


def answer_type(answer: str) -> AnswerType:
    """Return the crude type of an answer (see the module docstring)."""
    text = answer.strip()
    if text.lower().strip(" .!") in ("yes", "no"):
        return "yesno"
    if _DATE.search(text):
        return "date"
    if re.search(r"\d", text):
        return "number"
    words = [w for w in text.split() if w.lower() not in _CONNECTORS]
    initials = [w.lstrip("\"'(")[:1] for w in words]
    if any(c.isalpha() for c in initials) and all(c.isupper() for c in initials if c.isalpha()):
        return "name"
    return "number" if _NUMBER_WORD.search(text) else "other"


def _trim(span: str) -> str:
    words = span.split()
    while words and not content_tokens(words[0]):
        words.pop(0)  # a sentence's first word ("The", "In") is capitalised, not a name
    return " ".join(words).strip(" ,.;:")


def typed_spans(text: str, kind: AnswerType) -> list[str]:
    """Return the distinct spans of `text` of type `kind` (none for yes/no and other)."""
    match kind:
        case "date":
            found = [m.group(0) for m in _DATE.finditer(text)]
        case "number":
            found = [m.group(0) for m in _NUMBER.finditer(text)]
        case "name":
            found = [_trim(m.group(0)) for m in _NAME.finditer(text)]
        case _:
            found = []
    return [s for s in dict.fromkeys(s.strip(" ,.") for s in found) if s]


def phrase(answer: str, question: str, rng: random.Random) -> str:
    """Return `answer` as a short sentence, echoing the question half the time it can."""
    echo = _ECHO.match(question.strip().rstrip("?").strip())
    if echo and rng.random() < 0.5:
        return f"{answer} {echo.group(1).strip()}."
    return rng.choice(_TEMPLATES).format(a=answer)
