"""Answer scoring as in the papers: EM, token F1 and Acc after SQuAD-style normalisation.

Each metric takes the best over the gold answer aliases. Yes/no questions get one extra rule:
when a gold answer is "yes" or "no", a prediction that opens with "yes" or "no" ("Yes, both
were born in Ohio.") is scored as that word alone, so a correct verdict with an explanation
is not counted wrong, and "no" is never found inside "not" or "know".

Command-line options get one rule for Acc: a gold answer written as an option (`-A`,
`--ignore-case`, `--hash=sha256`) must occur in the prediction as written, case and dashes
kept, as a whole token: SQuAD's normaliser would credit `-a` for `-A` (another option of the
same tool) and any sentence with the pronoun "I" for `-i`, and would glue `--pid=PID` into
`pidpid` so the right option written with its argument went uncredited. A token may carry an
argument after the option (`--pid=PID`, `-A 3`, `-A3` for a one-letter option). EM and F1 keep
SQuAD's rule, so they stay comparable with the papers' figures.

Unanswerable questions (no gold answers) are scored by abstention instead: the run is right
when the graph said the documents do not answer it. Over a set that mixes both kinds, EM /
F1 / Acc are taken over the answerable questions only, and two rates describe abstention:
how often it abstains on unanswerable questions (higher is better) and on answerable ones
(the false-abstention rate, lower is better).
"""

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "AbstentionRates",
    "Scores",
    "abstention_rates",
    "accuracy",
    "exact_match",
    "is_answerable",
    "normalize_answer",
    "question_correct",
    "score_prediction",
    "token_f1",
]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)
_YES_NO = frozenset({"yes", "no"})
_OPTION = re.compile(r"--?[A-Za-z0-9][\w.=,:/+-]*")
"""A gold answer that is a command-line option, possibly with its value (`--hash=sha256`)."""


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


def _option_in(prediction: str, option: str) -> bool:
    """Tell whether the option occurs in the prediction as written, as a whole token.

    After a one-letter option (`-A`, not `-9`) digits may follow at once (`-A3`: its
    argument); after a longer one only a separator (`=`, space, punctuation) may.
    """
    short = re.fullmatch(r"-[A-Za-z]", option) is not None
    after = r"(?![A-Za-z_-])" if short else r"(?![\w-])"
    return re.search(rf"(?<![\w-]){re.escape(option)}{after}", prediction) is not None


def accuracy(prediction: str, gold: str) -> float:
    """Return 1.0 when the normalised gold answer occurs in the prediction as whole words.

    A gold option (`-A`, `--pid`) must occur as written instead (see the module's docstring).
    """
    if _OPTION.fullmatch(gold.strip()):
        return float(_option_in(prediction, gold.strip()))
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


@dataclass(frozen=True)
class AbstentionRates:
    """How often a strategy abstained, on each kind of question."""

    unanswerable: int
    """Unanswerable questions seen."""
    answerable: int
    """Answerable questions seen."""
    abstention: float | None
    """Share of unanswerable questions it abstained on (None without any)."""
    false_abstention: float | None
    """Share of answerable questions it abstained on (None without any)."""


def is_answerable(answers: Sequence[str]) -> bool:
    """Tell whether a question has gold answers (unanswerable ones have none)."""
    return any(a.strip() for a in answers)


def question_correct(answers: Sequence[str], *, acc: float, abstained: bool) -> float:
    """Return 1.0 for a right outcome: abstention when unanswerable, else the answer's Acc.

    An abstention on an answerable question is wrong whatever its sentence matches.
    """
    if not is_answerable(answers):
        return float(abstained)
    return 0.0 if abstained else acc


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def abstention_rates(outcomes: Iterable[tuple[Sequence[str], bool]]) -> AbstentionRates:
    """Return the abstention rates of (gold answers, abstained) pairs."""
    unanswerable: list[bool] = []
    answerable: list[bool] = []
    for answers, abstained in outcomes:
        (answerable if is_answerable(answers) else unanswerable).append(bool(abstained))
    return AbstentionRates(
        len(unanswerable), len(answerable), _share(unanswerable), _share(answerable)
    )
