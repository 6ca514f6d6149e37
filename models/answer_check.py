"""Is the reader's answer right? Features the graph knows when the answer is written.

The reader's own answers are spans of the evidence it read, so a support judge that asks "does
the evidence back this answer" says yes to its wrong answers too (docs/judges.md). What does
separate them is cheap and known at answer time: how sure the reader was (its mean token
log-probability), how well the evaluator graded the strip that holds the answer, whether the
answer is in the best strip at all, its length and whether it has the shape asked for.
`answer_features` computes them from the answer and its evidence (strip text, evaluator
score); a logistic model over them (`AnswerCheck`, coefficients fit offline on benchmark
records by `bench.suites.answer_confidence`) turns them into P(right).
"""

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from models.text import claimed_words, content_tokens, stems

__all__ = [
    "FEATURES",
    "READER_FEATURES",
    "AnswerCheck",
    "ArtifactMismatchError",
    "agreement",
    "answer_features",
    "reader_features",
    "span_logprobs",
    "type_match",
]

FEATURES = (
    "logprob",
    "logprob_missing",
    "best_score",
    "answer_words",
    "in_question",
    "type_match",
    "in_evidence",
    "in_best",
    "answer_grade",
)
"""The feature names, in the order `AnswerCheck` reads them."""
READER_FEATURES = ("span_mean", "span_min", "agreement", "agreement_missing")
"""What `reader_features` adds: the answer span's token log-probabilities and the candidates'
agreement."""
_ARTICLES = {"a", "an", "the"}
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_NUMBER = re.compile(r"\d")
_WORD = re.compile(r"[a-z0-9]+")


def type_match(question: str, answer: str) -> float:
    """Return 1 when the answer has the asked-for shape, 0 when not, 0.5 when nothing is asked.

    A year for "when", a number for "how many", a capitalised name for "who"/"where".
    """
    asked = question.strip().lower()
    if asked.startswith(("when", "what year", "in what year", "which year")):
        return float(bool(_YEAR.search(answer)))
    if asked.startswith(("how many", "how much", "how old", "how long")):
        return float(bool(_NUMBER.search(answer)))
    if asked.startswith(("who", "where")):
        return float(answer.strip()[:1].isupper())
    return 0.5


def _share(claimed: set[str], text: str) -> float:
    return len(claimed & stems(content_tokens(text))) / len(claimed) if claimed else 0.0


def answer_features(
    question: str,
    answer: str,
    logprob: float | None,
    evidence: Sequence[tuple[str, float]],
) -> dict[str, float]:
    """Return the features of one answer read from `evidence` ((strip text, score) pairs).

    - `logprob` / `logprob_missing`: the answer's mean token log-probability (0 and a flag
      when the model reports none);
    - `best_score`: the evidence's best evaluator score (-1 without evidence);
    - `answer_words` (capped at 30) and `in_question`: its length and the share of its words
      the question already holds;
    - `type_match`: see `type_match`;
    - `in_evidence` / `in_best`: the share of its claimed words (stems) in all the evidence
      and in the best-scored strip;
    - `answer_grade`: the best score of a strip that holds at least half of its claimed words
      (-1 when none does): how well the evidence *holding this answer* answers the question.
    """
    words = _WORD.findall(answer.lower())
    asked = set(_WORD.findall(question.lower()))
    claimed = stems(claimed_words(answer, question))
    ranked = sorted(evidence, key=lambda item: -item[1])
    holding = [score for text, score in ranked if _share(claimed, text) >= 0.5]
    return {
        "logprob": float(logprob) if logprob is not None else 0.0,
        "logprob_missing": float(logprob is None),
        "best_score": ranked[0][1] if ranked else -1.0,
        "answer_words": float(min(len(words), 30)),
        "in_question": sum(w in asked for w in words) / max(1, len(words)),
        "type_match": type_match(question, answer),
        "in_evidence": _share(claimed, " ".join(text for text, _ in ranked)),
        "in_best": _share(claimed, ranked[0][0]) if ranked else 0.0,
        "answer_grade": max(holding, default=-1.0),
    }


def span_logprobs(
    tokens: Sequence[tuple[str, float]], *, short: bool = True
) -> tuple[float, float] | None:
    """Return the mean and the lowest log-probability of the answer span's tokens.

    The span is what `clean_answer` keeps: the generated tokens before the first line break
    (`short`) or blank line; tokens without text (the end-of-turn token) are left out. None
    when the span has no token (the model reported no log-probabilities, or wrote nothing).
    """
    end = "\n" if short else "\n\n"
    text, values = "", []
    for token, logprob in tokens:
        if end in (text + token).lstrip():  # leading breaks are stripped, as the answer's are
            if token.split(end, 1)[0].strip():  # the token ends the answer's last word
                values.append(float(logprob))
            break
        text += token
        if token.strip():
            values.append(float(logprob))
    return (sum(values) / len(values), min(values)) if values else None


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _ARTICLES]


def agreement(answer: str, other: str) -> float:
    """Return the word-overlap F1 of two answers (articles, case and punctuation aside)."""
    mine, theirs = _words(answer), _words(other)
    common = sum(min(mine.count(w), theirs.count(w)) for w in set(mine))
    if not common:
        return 0.0
    precision, recall = common / len(mine), common / len(theirs)
    return 2 * precision * recall / (precision + recall)


def reader_features(
    answer: str, tokens: Sequence[tuple[str, float]], others: Sequence[str], *, short: bool = True
) -> dict[str, float]:
    """Return the features of the reader's own answer beyond `answer_features`.

    - `span_mean` / `span_min`: the mean and lowest token log-probability of the answer span
      (`span_logprobs`; 0 when none is reported);
    - `agreement` / `agreement_missing`: the best word-overlap F1 with the other candidates'
      answers (written from other evidence); 1 and a flag when there is no other candidate.
    """
    span = span_logprobs(tokens, short=short)
    mean, low = span if span is not None else (0.0, 0.0)
    scores = [agreement(answer, other) for other in others]
    return {
        "span_mean": mean,
        "span_min": low,
        "agreement": max(scores) if scores else 1.0,
        "agreement_missing": float(not scores),
    }


@dataclass(frozen=True)
class AnswerCheck:
    """A logistic model of P(answer right): standardised features, weights and a bias."""

    names: tuple[str, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float

    def probability(self, features: Mapping[str, float]) -> float:
        """Return P(right) for one answer's features."""
        z = self.bias + sum(
            w * (features[n] - m) / s
            for n, m, s, w in zip(self.names, self.means, self.scales, self.weights, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-z))

    def save(self, folder: Path, **provenance: Any) -> str:
        """Write `answer_check.json` and `manifest.json` (its sha256 and `provenance`)."""
        folder.mkdir(parents=True, exist_ok=True)
        data = json.dumps(asdict(self), indent=2).encode()
        (folder / _MODEL).write_bytes(data)
        digest = hashlib.sha256(data).hexdigest()
        manifest = {"model_sha256": digest, **provenance}
        (folder / _MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        return digest

    @classmethod
    def load(cls, folder: Path) -> "AnswerCheck":
        """Read a saved check, refusing one whose file does not match the manifest's sha256."""
        data = (folder / _MODEL).read_bytes()
        manifest = json.loads((folder / _MANIFEST).read_text(encoding="utf-8"))
        if hashlib.sha256(data).hexdigest() != manifest.get("model_sha256"):
            raise ArtifactMismatchError(f"{folder / _MODEL} does not match its manifest's sha256")
        fields = json.loads(data)
        return cls(
            tuple(fields["names"]),
            tuple(fields["means"]),
            tuple(fields["scales"]),
            tuple(fields["weights"]),
            float(fields["bias"]),
        )


class ArtifactMismatchError(ValueError):
    """A saved answer check's file was changed after its manifest was written."""


_MODEL = "answer_check.json"
_MANIFEST = "manifest.json"
