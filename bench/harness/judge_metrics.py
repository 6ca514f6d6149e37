"""Judge metrics: accuracy, ROC AUC and confusion matrices, without extra dependencies."""

from collections.abc import Sequence

__all__ = ["accuracy", "confusion_matrix", "roc_auc"]


def accuracy(gold: Sequence[object], predicted: Sequence[object]) -> float:
    """Return the share of positions where `predicted` equals `gold` (0.0 when empty)."""
    if len(gold) != len(predicted):
        raise ValueError("gold and predicted differ in length")
    return sum(g == p for g, p in zip(gold, predicted, strict=True)) / len(gold) if gold else 0.0


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float:
    """Return the ROC AUC: the chance a random positive outscores a random negative (ties 1/2)."""
    ranked = sorted(zip(scores, labels, strict=True))
    positives = sum(1 for label in labels if label)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return float("nan")
    rank_sum, index = 0.0, 0
    while index < len(ranked):
        end = index
        while end + 1 < len(ranked) and ranked[end + 1][0] == ranked[index][0]:
            end += 1
        average_rank = (index + end) / 2 + 1
        rank_sum += average_rank * sum(1 for _, label in ranked[index : end + 1] if label)
        index = end + 1
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def confusion_matrix(
    gold: Sequence[str], predicted: Sequence[str], classes: Sequence[str]
) -> dict[str, dict[str, int]]:
    """Return counts as `{gold_class: {predicted_class: n}}`."""
    table = {g: {p: 0 for p in classes} for g in classes}
    for g, p in zip(gold, predicted, strict=True):
        table[g][p] += 1
    return table
