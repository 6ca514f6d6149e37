"""A logistic model fit on some rows and judged on others, with intervals over groups.

Shared by the correctness signals of `bench.suites.answer_confidence`: scikit-learn's logistic
regression on standardised columns; the AUC's 95% interval resamples groups (questions), since
rows of one question are not independent.
"""

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from bench.harness.judge_metrics import roc_auc

__all__ = ["bootstrap", "fit_logistic", "judged", "resample_groups"]


def resample_groups(
    members: Sequence[list[int]],
    statistic: Callable[[list[int]], float | None],
    *,
    rng: random.Random,
    resamples: int,
) -> tuple[float, float] | None:
    """Return a 95% interval of `statistic` over resamples of whole groups of row indices.

    A draw whose statistic is None (e.g. one label only) is skipped; None if every one was.
    """
    values = []
    for _ in range(resamples):
        value = statistic([i for _ in members for i in rng.choice(members)])
        if value is not None:
            values.append(value)
    if not values:
        return None
    values.sort()
    return values[int(0.025 * len(values))], values[int(0.975 * len(values)) - 1]


def bootstrap(
    labels: list[int], scores: list[float], groups: list[str], seed: int = 0
) -> tuple[float, float]:
    """Return a 95% interval of the AUC, resampling questions (their rows go together)."""
    members: dict[str, list[int]] = defaultdict(list)
    for index, group in enumerate(groups):
        members[group].append(index)

    def auc(idx: list[int]) -> float | None:
        picked = [labels[i] for i in idx]
        return roc_auc(picked, [scores[i] for i in idx]) if 0 < sum(picked) < len(picked) else None

    ordered = [members[name] for name in sorted(members)]
    interval = resample_groups(ordered, auc, rng=random.Random(seed), resamples=500)
    if interval is None:
        raise ValueError("no resample of these rows holds both labels")
    return interval


def fit_logistic(
    table: Sequence[dict[str, float]], labels: Sequence[int], names: Sequence[str]
) -> Any:
    """Return a standardising logistic regression fit on the `names` columns of `table`."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    return model.fit([[f[n] for n in names] for f in table], list(labels))


def judged(
    model: Any,
    table: Sequence[dict[str, float]],
    labels: list[int],
    names: Sequence[str],
    groups: list[str],
) -> dict[str, Any]:
    """Return the AUC (with its interval) and the 95%-right cut of a fit model on some rows."""
    scores = model.predict_proba([[f[n] for n in names] for f in table])[:, 1].tolist()
    low, high = bootstrap(labels, scores, groups)
    right = sorted(s for s, label in zip(scores, labels, strict=True) if label)
    cut = right[int(0.05 * len(right))] if right else 0.5
    wrong = [s for s, label in zip(scores, labels, strict=True) if not label]
    return {
        "rows": len(labels),
        "right": sum(labels),
        "questions": len(set(groups)),
        "auc": round(roc_auc(labels, scores), 3),
        "auc_interval": [round(low, 3), round(high, 3)],
        "abstain_cut_95": {
            "probability": round(cut, 3),
            "wrong_caught": round(sum(s < cut for s in wrong) / max(1, len(wrong)), 3),
        },
    }
