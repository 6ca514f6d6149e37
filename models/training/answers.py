"""SQuAD-style answer normalisation and the answer-match used to score predictions."""

import re
import string
from collections.abc import Iterable

__all__ = ["answer_in", "normalize_answer"]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation and articles, and collapse whitespace (SQuAD's rule)."""
    lowered = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def answer_in(prediction: str, answers: Iterable[str]) -> bool:
    """Return whether a normalised gold answer occurs in the normalised prediction (Acc)."""
    normalized = f" {normalize_answer(prediction)} "
    for answer in answers:
        gold = normalize_answer(answer)
        if gold and f" {gold} " in normalized:
            return True
    return False
