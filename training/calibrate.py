"""Choose CRAG's thresholds on the dev files and measure the evaluator; update its manifest.

Procedure (recorded in the manifest): from each dev dataset take up to `per_dataset` questions
(seeded). For each question build two simulated retrievals of `set_size` passages: one holding
a relevant passage (plus non-relevant ones, its own first, then other questions'), one holding
none. The target action is Correct for the first and Incorrect for the second.

- upper: the smallest threshold at which "any score >= upper" is right (a relevant passage is
  present) in at least `precision` of the retrievals it fires on;
- lower: the largest threshold (<= upper) at which "all scores < lower" is right (no relevant
  passage) in at least `precision` of the retrievals it fires on; in between is Ambiguous;
- strip filter: the largest threshold that keeps at least `strip_recall` of the answer-bearing
  strips of relevant passages.
"""

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness.judge_metrics import accuracy, roc_auc
from models.evaluator import Thresholds, crag_action, load_evaluator
from training.answers import answer_in
from training.data import build_pairs, is_relevant, load_records, split_files, split_strips

__all__ = [
    "THRESHOLD_GRID",
    "calibrate_evaluator",
    "choose_thresholds",
    "pair_metrics",
    "sample_per_dataset",
]

THRESHOLD_GRID = [round(-0.99 + 0.01 * i, 2) for i in range(199)]
"""Candidate thresholds on the [-1, 1] scale, in steps of 0.01."""


def sample_per_dataset(
    records: list[dict[str, Any]], per_dataset: int, seed: int
) -> list[dict[str, Any]]:
    """Return up to `per_dataset` seeded random records of each dataset, datasets sorted."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for dataset in sorted({r["dataset"] for r in records}):
        group = [r for r in records if r["dataset"] == dataset]
        out.extend(rng.sample(group, min(per_dataset, len(group))))
    return out


def _retrievals(
    records: list[dict[str, Any]], set_size: int, seed: int
) -> list[tuple[str, list[str], bool]]:
    rng = random.Random(seed)
    pool = [p["text"] for r in records for p in r["passages"]]
    sets: list[tuple[str, list[str], bool]] = []
    for record in records:
        good = [p["text"] for p in record["passages"] if is_relevant(p, record["answers"])]
        bad = [p["text"] for p in record["passages"] if not is_relevant(p, record["answers"])]
        rng.shuffle(bad)
        own = set(good) | set(bad)
        others = [t for t in rng.sample(pool, min(len(pool), 4 * set_size)) if t not in own]
        filler = (bad + others)[:set_size]
        if good:
            sets.append((record["question"], [rng.choice(good), *filler[: set_size - 1]], True))
        sets.append((record["question"], filler, False))
    return sets


def choose_thresholds(
    retrievals: list[tuple[list[float], bool]],
    strip_scores: list[float],
    *,
    precision: float = 0.9,
    strip_recall: float = 0.95,
) -> Thresholds:
    """Pick (upper, lower, strip filter) by the criteria in the module docstring."""
    tops = [(max(scores, default=-1.0), present) for scores, present in retrievals]

    def precise(fired: list[bool]) -> bool:
        return bool(fired) and sum(fired) / len(fired) >= precision

    upper = next((t for t in THRESHOLD_GRID if precise([p for s, p in tops if s >= t])), 0.99)
    lower = next(
        (
            t
            for t in reversed(THRESHOLD_GRID)
            if t <= upper and precise([not p for s, p in tops if s < t])
        ),
        -0.99,
    )
    ranked = sorted(strip_scores)
    keep_from = ranked[int((1 - strip_recall) * len(ranked))] if ranked else -0.5
    strip = max((t for t in THRESHOLD_GRID if t <= keep_from), default=-0.99)
    return Thresholds(upper=upper, lower=lower, strip_filter=strip)


def pair_metrics(labels: list[int], scores: list[float], *, cut: float = 0.0) -> dict[str, float]:
    """Return accuracy (score >= cut means relevant), AUC and the pair count."""
    predicted = [int(s >= cut) for s in scores]
    return {
        "accuracy": accuracy(labels, predicted),
        "auc": roc_auc(labels, scores),
        "pairs": len(labels),
    }


def calibrate_evaluator(
    artifact: Path, data_dir: Path, *, per_dataset: int = 50, set_size: int = 4, seed: int = 0
) -> dict[str, Any]:
    """Choose thresholds and measure the evaluator in `artifact` on dev; rewrite its manifest."""
    records = sample_per_dataset(load_records(split_files(data_dir, "dev")), per_dataset, seed)
    evaluator = load_evaluator(artifact)
    pairs = build_pairs(records, seed=seed)
    sets = _retrievals(records, set_size, seed)
    strips = [
        (r["question"], s)
        for r in records
        for p in r["passages"]
        if is_relevant(p, r["answers"])
        for s in split_strips(p["text"])[:8]
        if answer_in(s, r["answers"])
    ]
    wanted = {(p.question, p.text) for p in pairs} | {(q, t) for q, ts, _ in sets for t in ts}
    wanted |= set(strips)
    keys = sorted(wanted)
    scores = dict(
        zip(keys, evaluator.score_pairs([q for q, _ in keys], [t for _, t in keys]), strict=True)
    )
    retrieval_scores = [([scores[(q, t)] for t in ts], present) for q, ts, present in sets]
    thresholds = choose_thresholds(retrieval_scores, [scores[k] for k in strips])
    actions = [crag_action(s, thresholds) for s, _ in retrieval_scores]
    manifest_path = Path(artifact) / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["thresholds"] = thresholds.as_dict()
    manifest["calibration"] = {
        "procedure": __doc__.split("Procedure (recorded in the manifest): ", 1)[-1].strip()
        if __doc__
        else "",
        "dev_questions": len(records),
        "retrievals": len(sets),
        "set_size": set_size,
        "answer_strips": len(strips),
        "seed": seed,
        "action_mix": {a: actions.count(a) for a in ("Correct", "Ambiguous", "Incorrect")},
        "decisive_accuracy": _decisive(actions, [p for _, p in retrieval_scores]),
    }
    labels = [p.label for p in pairs]
    manifest["metrics"] = {
        "dev_pairs": pair_metrics(labels, [scores[(p.question, p.text)] for p in pairs])
    }
    manifest_path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def _decisive(actions: Sequence[str], present: Sequence[bool]) -> float:
    decided = [(a, p) for a, p in zip(actions, present, strict=True) if a != "Ambiguous"]
    right = sum((a == "Correct") == p for a, p in decided)
    return right / len(decided) if decided else 0.0
