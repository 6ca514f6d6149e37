"""The trained CRAG retrieval evaluator and its calibrated thresholds.

`load_evaluator()` returns a MiniLM cross-encoder rebuilt offline from the packaged base model
plus the committed artifact in `models/artifacts/evaluator/` (see `acrag train evaluator`).
`load_thresholds()` reads the upper, lower and strip-filter thresholds chosen on the dev files
from the same artifact's manifest, without loading torch. CRAG's upper and lower thresholds
are then replaced by the ones chosen by answer accuracy (`decision.json` beside the manifest,
written by `python -m bench.suites.crag_sweep ... --decide`), when that file names these weights.
"""

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "ACTION_ARTIFACT_DIR",
    "ARTIFACT_DIR",
    "DECISION",
    "CragAction",
    "Thresholds",
    "TrainedEvaluator",
    "crag_action",
    "load_evaluator",
    "load_thresholds",
]

ARTIFACT_DIR = Path(__file__).resolve().parent / "artifacts" / "evaluator"
ACTION_ARTIFACT_DIR = ARTIFACT_DIR.with_name("action_evaluator")
"""The evaluator that decides CRAG's action beside the one above (`Context.action_evaluator`)."""
CragAction = Literal["Correct", "Incorrect", "Ambiguous"]
DECISION = "decision.json"
"""CRAG's upper/lower thresholds chosen by answer accuracy for one set of evaluator weights."""


@dataclass(frozen=True)
class Thresholds:
    """CRAG's decision thresholds on the evaluator's [-1, 1] scale."""

    upper: float
    """Correct if any passage scores at least this."""
    lower: float
    """Incorrect if every passage scores below this."""
    strip_filter: float
    """Refinement drops strips scoring below this."""

    def as_dict(self) -> dict[str, float]:
        """Return the thresholds as a plain dict (for manifests and JSON output)."""
        return asdict(self)


def crag_action(scores: Sequence[float], thresholds: Thresholds) -> CragAction:
    """Return CRAG's action for one retrieval's scores.

    Correct if any score >= upper, Incorrect if all < lower, Ambiguous otherwise.

    A score exactly at `upper` counts as Correct; one exactly at `lower` is not below it. No
    scores at all means Incorrect.
    """
    if any(score >= thresholds.upper for score in scores):
        return "Correct"
    if all(score < thresholds.lower for score in scores):
        return "Incorrect"
    return "Ambiguous"


def load_thresholds(artifact: Path | None = None) -> Thresholds:
    """Return the thresholds recorded in the evaluator manifest (no model is loaded)."""
    from models.artifact import MANIFEST, ArtifactError

    path = Path(artifact or ARTIFACT_DIR) / MANIFEST
    if not path.is_file():
        raise ArtifactError(f"no evaluator manifest at {path}; run `acrag train evaluator`")
    manifest = json.loads(path.read_text())
    values = manifest.get("thresholds")
    if not values:
        raise ArtifactError(f"{path} records no thresholds; run `acrag train evaluator`")
    values = {k: float(values[k]) for k in ("upper", "lower", "strip_filter")}
    decision = path.parent / DECISION
    if decision.is_file():
        chosen = json.loads(decision.read_text())
        if chosen.get("weights_sha256") != manifest.get("weights_sha256"):
            raise ArtifactError(
                f"{decision} was chosen for other evaluator weights; rerun the sweep "
                "(`python -m bench.suites.crag_sweep ... --decide`) or delete it"
            )
        values |= {k: float(chosen[k]) for k in ("upper", "lower")}
    return Thresholds(**values)


class TrainedEvaluator:
    """A trained MiniLM judge scoring (question, passage) relevance in [-1, 1].

    `logits` maps (questions, passages) to one logit per pair: the embedding head or the
    fine-tuned cross-encoder, as the artifact's manifest says.
    """

    MEMORY = 4096
    """Recent (question, passage) scores kept: refinement's strips are often the very windows
    grading scored a moment before, and a follow-up re-reads the same passages."""

    def __init__(
        self, logits: Callable[[Sequence[str], Sequence[str]], Any], manifest: dict[str, Any]
    ) -> None:
        self.logits, self.manifest = logits, manifest
        self._recent: OrderedDict[tuple[str, str], float] = OrderedDict()
        self._recent_lock = threading.Lock()

    @property
    def thresholds(self) -> Thresholds | None:
        """The calibrated thresholds from the manifest, if recorded."""
        values = self.manifest.get("thresholds")
        return Thresholds(**values) if values else None

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        """Return one relevance score in [-1, 1] per passage (recent pairs are not rescored)."""
        recent = self._recent
        with self._recent_lock:
            known = {p: recent[(question, p)] for p in passages if (question, p) in recent}
        fresh = list(dict.fromkeys(p for p in passages if p not in known))
        known |= zip(fresh, self.score_pairs([question] * len(fresh), fresh), strict=True)
        with self._recent_lock:
            for passage, value in known.items():
                recent[(question, passage)] = value
                recent.move_to_end((question, passage))
            while len(recent) > self.MEMORY:
                recent.popitem(last=False)
        return [known[p] for p in passages]

    def score_pairs(self, questions: Sequence[str], passages: Sequence[str]) -> list[float]:
        """Score many (question, passage) pairs in batches."""
        import torch

        if not questions:
            return []
        logits = torch.as_tensor(self.logits(list(questions), list(passages))).reshape(-1)
        return (2 * torch.sigmoid(logits) - 1).tolist()


_lock = threading.Lock()


def _cross_encoder(folder: Path, quantized: bool) -> TrainedEvaluator:
    from models.artifact import pair_logits

    logits, manifest = pair_logits(folder, kind="evaluator", quantized=quantized)
    return TrainedEvaluator(logits, manifest)


@cache
def _load(folder: str, quantized: bool) -> TrainedEvaluator:
    from models.artifact import WEIGHTS, read_manifest

    with _lock:
        manifest = read_manifest(Path(folder), kind="evaluator")
        if manifest.get("architecture") != "embedding-head":
            return _cross_encoder(Path(folder), quantized)
        from models.heads import EmbeddingHeadScorer, load_head

        scorer = EmbeddingHeadScorer(load_head(Path(folder) / WEIGHTS))
        return TrainedEvaluator(scorer.logits, manifest)


def load_evaluator(
    artifact: Path | None = None, *, quantized: bool | None = None
) -> TrainedEvaluator:
    """Load the trained evaluator (cached per folder); offline, CPU.

    Args:
        artifact: Artifact folder; the committed one by default.
        quantized: Use int8 dynamic quantization (cross-encoder artifacts only); by default as
            the manifest recommends.
    """
    folder = Path(artifact or ARTIFACT_DIR).resolve()
    if quantized is None:
        from models.artifact import MANIFEST

        manifest = folder / MANIFEST
        quantized = bool(manifest.is_file() and json.loads(manifest.read_text()).get("quantized"))
    return _load(str(folder), quantized)
