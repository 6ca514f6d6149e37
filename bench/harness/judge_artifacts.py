"""Which trained judges a strategy's answers depend on, and a fingerprint of each.

A benchmark record must not outlive the judge that shaped it. Retraining the classifier
changes what `adaptive` and `acrag` answer, not what `single` answers; so a strategy's run
signature carries the fingerprints of the artifacts it runs on, and only its own records
are redone after a retrain.
"""

import hashlib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from bench.harness.strategies import BASELINES, ORACLE, context_overrides
from graphs.context import BUNDLED
from models import classifier, evaluator, support

__all__ = ["JUDGE_DIRS", "artifact_fingerprint", "judge_fingerprints", "judges_used"]

JUDGE_DIRS: dict[str, Path] = {
    "classifier": classifier.ARTIFACT_DIR,
    "evaluator": evaluator.ARTIFACT_DIR,
    "action_evaluator": evaluator.ACTION_ARTIFACT_DIR,
    "support": support.ARTIFACT_DIR,
}
_DESCRIBING = ("manifest.json", "decision.json")
"""The files that name an artifact: the manifest holds the weights' sha256, the decision the
thresholds chosen for them."""


def judges_used(strategy: str, settings: Mapping[str, Any]) -> list[str]:
    """Return the trained judges whose artifacts shape `strategy`'s answers under `settings`.

    Plain retrieval (every passage Correct and kept whole) runs the evaluator without acting
    on its scores, so it does not count; the baselines and the oracle use no trained judge.
    """
    if strategy == ORACLE or strategy in BASELINES:
        return []
    merged = {**settings, **context_overrides(strategy, settings)}
    used = []
    if merged.get("route", "auto") == "auto" and merged.get("classifier", "trained") == "trained":
        used.append("classifier")
    plain = (
        merged.get("strip_mode") == "passage"
        and merged.get("upper_threshold") == -1.0
        and merged.get("lower_threshold") == -1.0
    )
    if not plain and merged.get("evaluator", "trained") == "trained":
        used.append("evaluator")
        if merged.get("action_evaluator", BUNDLED) == BUNDLED:
            used.append("action_evaluator")  # another folder is named in the settings
    if merged.get("reflect", True) and merged.get("support") == "trained":
        used.append("support")
    return used


@cache
def artifact_fingerprint(directory: Path) -> str:
    """Return a short hash of the files naming the artifact in `directory` ("" if absent)."""
    found = [directory / name for name in _DESCRIBING if (directory / name).is_file()]
    if not found:
        return ""
    digest = hashlib.sha256()
    for path in found:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def judge_fingerprints(strategy: str, settings: Mapping[str, Any]) -> dict[str, str]:
    """Return {judge: fingerprint} for the trained judges `strategy` depends on."""
    return {j: artifact_fingerprint(JUDGE_DIRS[j]) for j in judges_used(strategy, settings)}
