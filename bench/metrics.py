"""Answer scoring as in the papers: EM, token F1 and Acc after SQuAD-style normalisation.

Each metric takes the best over the gold answer aliases. Yes/no questions get one extra rule:
when a gold answer is "yes" or "no", a prediction that opens with "yes" or "no" ("Yes, both
were born in Ohio.") is scored as that word alone, so a correct verdict with an explanation
is not counted wrong, and "no" is never found inside "not" or "know".
"""

import re
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Scores",
    "accuracy",
    "exact_match",
    "normalize_answer",
    "score_prediction",
    "token_f1",
]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)
_YES_NO = frozenset({"yes", "no"})


@dataclass(frozen=True)
class Scores:
    """The three scores of one prediction, each the best over the gold aliases."""

    em: float
    f1: float
    acc: float


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation and articles, and collapse whitespace (SQuAD's rule)."""
    lowered = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def _verdict(prediction: str, gold: str) -> str:
    """Reduce a prediction to its opening yes/no when the gold answer is yes or no."""
    normal = normalize_answer(prediction)
    if gold in _YES_NO:
        first = normal.split(" ", 1)[0]
        if first in _YES_NO:
            return first
    return normal


def exact_match(prediction: str, gold: str) -> float:
    """Return 1.0 when the normalised prediction equals the normalised gold answer."""
    normal_gold = normalize_answer(gold)
    return float(bool(normal_gold) and _verdict(prediction, normal_gold) == normal_gold)


def token_f1(prediction: str, gold: str) -> float:
    """Return the token-overlap F1 of the normalised prediction against one gold answer.

    As in the HotpotQA scorer, a yes/no gold answer only matches exactly: "yes" against
    "no" is 0 even though neither has other tokens.
    """
    normal_gold = normalize_answer(gold)
    predicted = _verdict(prediction, normal_gold)
    if normal_gold in _YES_NO or predicted in _YES_NO:
        return float(predicted == normal_gold)
    pred_tokens, gold_tokens = predicted.split(), normal_gold.split()
    common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred_tokens), common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def accuracy(prediction: str, gold: str) -> float:
    """Return 1.0 when the normalised gold answer occurs in the prediction as whole words."""
    normal_gold = normalize_answer(gold)
    if not normal_gold:
        return 0.0
    if normal_gold in _YES_NO:
        return float(_verdict(prediction, normal_gold) == normal_gold)
    return float(f" {normal_gold} " in f" {normalize_answer(prediction)} ")


def score_prediction(prediction: str, answers: Sequence[str]) -> Scores:
    """Score a prediction against every gold alias and keep the best of each metric."""
    if not answers:
        return Scores(0.0, 0.0, 0.0)
    return Scores(
        em=max(exact_match(prediction, a) for a in answers),
        f1=max(token_f1(prediction, a) for a in answers),
        acc=max(accuracy(prediction, a) for a in answers),
    )
