"""The answer match used to find answer-bearing passages and to score silver-label runs.

It is the benchmark's own Acc (`bench.harness.metrics`), so labels and benchmark tables agree on
what
counts as a correct answer.
"""

from collections.abc import Iterable

from bench.harness.metrics import accuracy, normalize_answer

__all__ = ["answer_in", "normalize_answer"]


def answer_in(prediction: str, answers: Iterable[str]) -> bool:
    """Return whether a normalised gold answer occurs in the normalised prediction (Acc)."""
    return any(accuracy(prediction, answer) for answer in answers)
