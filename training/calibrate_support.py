"""Choose the support judge's thresholds on the dev files and measure it; update its manifest.

Procedure (recorded in the manifest): take up to `per_dataset` dev questions per dataset
(seeded) plus every dev question with silver-label rows, and build pairs from them exactly as
for training (`training.support_data`: gold answers with their answer-bearing window;
wrong answers of the same type, wrong spans, windows without the answer; the silver readers'
right and wrong predictions), balanced. Score every pair with the trained judge.

- unsupported: the largest threshold at which at most `max_false_none` of the supported
  pairs score below it (what abstention on `none` would wrongly throw away);
- supported: the smallest threshold (>= unsupported) at which at most `max_false_full` of the
  unsupported pairs score at or above it (hallucinations passed as `full`);
between them is `partial`.
"""

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness.judge_metrics import roc_auc
from models.artifact import MANIFEST, pair_logits
from models.support import KIND, SupportThresholds, TrainedSupportJudge
from training.calibrate import THRESHOLD_GRID, pair_metrics, sample_per_dataset
from training.data import load_records, split_files
from training.support_data import (
    SupportPair,
    build_support_pairs,
    read_silver,
    silver_files,
)

__all__ = [
    "calibrate_support",
    "choose_support_thresholds",
    "dev_pairs",
    "score_support_pairs",
    "share_below",
    "support_metrics",
]


def share_below(values: Sequence[float], cut: float) -> float:
    """Return the share of `values` below `cut` (0.0 when there are none)."""
    return sum(v < cut for v in values) / len(values) if values else 0.0


def choose_support_thresholds(
    labels: Sequence[int],
    scores: Sequence[float],
    *,
    max_false_none: float = 0.05,
    max_false_full: float = 0.10,
) -> SupportThresholds:
    """Pick (supported, unsupported) by the criteria in the module docstring."""
    good = [s for s, label in zip(scores, labels, strict=True) if label]
    bad = [s for s, label in zip(scores, labels, strict=True) if not label]
    fits = [t for t in THRESHOLD_GRID if share_below(good, t) <= max_false_none]
    low = max(fits, default=-0.99)
    high = next(
        (t for t in THRESHOLD_GRID if t >= low and 1 - share_below(bad, t) <= max_false_full),
        0.99,
    )
    return SupportThresholds(supported=high, unsupported=low)


def score_support_pairs(judge: TrainedSupportJudge, pairs: Sequence[SupportPair]) -> list[float]:
    """Score each pair's answer against its one evidence window."""
    return judge.score_many([(p.question, p.answer, [p.evidence]) for p in pairs])


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def support_metrics(pairs: Sequence[SupportPair], scores: Sequence[float]) -> dict[str, Any]:
    """Return AUC and accuracy (score >= 0 means supported) overall, and AUC per negative kind."""
    labels = [p.label for p in pairs]
    positives = [(s, 1) for p, s in zip(pairs, scores, strict=True) if p.label]
    by_kind: dict[str, float | None] = {}
    for kind in sorted({p.kind for p in pairs if not p.label}):
        negatives = [(s, 0) for p, s in zip(pairs, scores, strict=True) if p.kind == kind]
        both = positives + negatives
        by_kind[kind] = _finite(roc_auc([label for _, label in both], [s for s, _ in both]))
    readers = [
        (p.label, s) for p, s in zip(pairs, scores, strict=True) if p.kind.startswith("reader")
    ]
    reader_auc = _finite(roc_auc([label for label, _ in readers], [s for _, s in readers]))
    return {
        **pair_metrics(labels, list(scores)),
        "auc_by_negative_kind": by_kind,
        "reader_auc": reader_auc,
    }


def dev_pairs(
    data_dir: Path, labels_dir: Path, *, per_dataset: int, seed: int
) -> tuple[int, list[SupportPair]]:
    """Return the number of dev questions sampled and the pairs built from them."""
    every = load_records(split_files(data_dir, "dev"))
    silver = read_silver(silver_files(labels_dir, "dev"))
    chosen = {r["id"] for r in sample_per_dataset(every, per_dataset, seed)}
    chosen |= {row["id"] for row in silver}
    records = [r for r in every if r["id"] in chosen]
    return len(records), build_support_pairs(records, silver=silver, seed=seed)


def calibrate_support(
    artifact: Path,
    data_dir: Path,
    *,
    labels_dir: Path,
    per_dataset: int = 100,
    seed: int = 0,
    max_false_none: float = 0.05,
    max_false_full: float = 0.10,
) -> dict[str, Any]:
    """Choose thresholds and measure the judge in `artifact` on dev; rewrite its manifest."""
    questions, pairs = dev_pairs(data_dir, labels_dir, per_dataset=per_dataset, seed=seed)
    judge = TrainedSupportJudge(*pair_logits(artifact, kind=KIND))  # uncached: fresh manifest
    scores = score_support_pairs(judge, pairs)
    labels = [p.label for p in pairs]
    chosen = choose_support_thresholds(
        labels, scores, max_false_none=max_false_none, max_false_full=max_false_full
    )
    good = [s for s, label in zip(scores, labels, strict=True) if label]
    bad = [s for s, label in zip(scores, labels, strict=True) if not label]
    path = Path(artifact) / MANIFEST
    manifest = json.loads(path.read_text())
    manifest["thresholds"] = chosen.as_dict()
    manifest["calibration"] = {
        "procedure": (__doc__ or "").split("Procedure (recorded in the manifest): ", 1)[-1].strip(),
        "dev_questions": questions,
        "per_dataset": per_dataset,
        "seed": seed,
        "max_false_none": max_false_none,
        "max_false_full": max_false_full,
        "false_none": share_below(good, chosen.unsupported),
        "false_full": 1 - share_below(bad, chosen.supported) if bad else 0.0,
    }
    manifest["metrics"] = {"dev_pairs": support_metrics(pairs, scores)}
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
