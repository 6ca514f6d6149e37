"""The trained support judge (Self-RAG's IsSup): does the evidence back this answer?

A MiniLM cross-encoder reads `question [SEP] answer` beside one evidence window (a few
sentences; longer evidence is cut into overlapping windows) and scores support in [-1, 1]
(`2 * sigmoid(logit) - 1`). An answer's score is the best over all windows of its evidence.
Two thresholds recorded in the artifact's manifest (chosen on the dev files by `acrag train
support`) turn the score into Self-RAG's levels: `full` at or above `supported`, `none` below
`unsupported`, `partial` in between. `load_support_judge()` loads `models/artifacts/support/`
offline and caches it.
"""

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from models.judges import SupportJudgement, SupportLevel
from models.text import split_sentences

__all__ = [
    "ARTIFACT_DIR",
    "KIND",
    "SupportThresholds",
    "TrainedSupportJudge",
    "evidence_windows",
    "load_support_judge",
    "support_distribution",
    "support_input",
    "support_level",
]

ARTIFACT_DIR = Path(__file__).resolve().parent / "artifacts" / "support"
KIND = "support"
WINDOW_SENTENCES = 3
WINDOW_STRIDE = 2
_LEVELS: tuple[SupportLevel, ...] = ("none", "partial", "full")


@dataclass(frozen=True)
class SupportThresholds:
    """The support judge's cuts on its [-1, 1] scale."""

    supported: float
    """`full` at or above this."""
    unsupported: float
    """`none` below this."""

    def as_dict(self) -> dict[str, float]:
        """Return the thresholds as a plain dict (for manifests and JSON output)."""
        return asdict(self)


def support_level(score: float, thresholds: SupportThresholds) -> SupportLevel:
    """Return `full` if score >= supported, `none` if score < unsupported, else `partial`."""
    if score >= thresholds.supported:
        return "full"
    return "none" if score < thresholds.unsupported else "partial"


def support_distribution(score: float, thresholds: SupportThresholds) -> dict[SupportLevel, float]:
    """Spread one score over the three levels; the level `support_level` names always wins.

    The named level takes 3/4 of the mass; the last quarter goes to its neighbours by how far
    the score lies through the level's band (to the level above as it nears the upper edge),
    or stays with the level when it has no neighbour on that side. So P(full) + P(partial) / 2
    (reflect's IsSup) grows with the score inside each band.
    """
    edges = [-1.0, thresholds.unsupported, thresholds.supported, 1.0]
    index = _LEVELS.index(support_level(score, thresholds))
    low, high = edges[index], edges[index + 1]
    through = min(max((score - low) / (high - low), 0.0), 1.0) if high > low else 0.5
    mass = dict.fromkeys(_LEVELS, 0.0)
    mass[_LEVELS[index]] = 0.75
    below = _LEVELS[index - 1] if index > 0 else _LEVELS[index]
    above = _LEVELS[index + 1] if index < 2 else _LEVELS[index]
    mass[below] += 0.25 * (1.0 - through)
    mass[above] += 0.25 * through
    return {"full": mass["full"], "partial": mass["partial"], "none": mass["none"]}


def support_input(question: str, answer: str) -> str:
    """Return the cross-encoder's first segment: the question, a separator, the answer."""
    return f"{question.strip()} [SEP] {answer.strip()}"


def evidence_windows(
    evidence: Sequence[str], *, sentences: int = WINDOW_SENTENCES, stride: int = WINDOW_STRIDE
) -> list[str]:
    """Cut each evidence text into windows of `sentences` sentences, starting every `stride`."""
    windows: list[str] = []
    for text in evidence:
        found = split_sentences(text)
        if not found:
            continue
        starts = range(0, max(len(found) - sentences, 0) + 1, stride)
        cut = [" ".join(found[i : i + sentences]) for i in starts]
        if len(found) > sentences and (len(found) - sentences) % stride:
            cut.append(" ".join(found[-sentences:]))  # the tail a stride stepped over
        windows.extend(dict.fromkeys(cut))
    return windows


class TrainedSupportJudge:
    """A trained MiniLM judge of whether evidence supports an answer (`EvidenceSupportChecker`).

    `logits` maps (first segments, windows) to one logit per pair; `manifest` holds the
    thresholds and the window size.
    """

    def __init__(
        self, logits: Callable[[Sequence[str], Sequence[str]], Any], manifest: dict[str, Any]
    ) -> None:
        self.logits, self.manifest = logits, manifest

    @property
    def thresholds(self) -> SupportThresholds | None:
        """The thresholds chosen on dev, if the manifest records them."""
        values = self.manifest.get("thresholds")
        return SupportThresholds(**values) if values else None

    def windows(self, evidence: Sequence[str]) -> list[str]:
        """Return the evidence windows the judge reads (sizes from the manifest)."""
        size = self.manifest.get("windows") or {}
        return evidence_windows(
            evidence,
            sentences=int(size.get("sentences", WINDOW_SENTENCES)),
            stride=int(size.get("stride", WINDOW_STRIDE)),
        )

    def score_many(self, items: Sequence[tuple[str, str, Sequence[str]]]) -> list[float]:
        """Score (question, answer, evidence) triples in one batched pass (-1 without evidence)."""
        each = self.score_items(items)
        return [max(scores, default=-1.0) for scores in each]

    def score_items(self, items: Sequence[tuple[str, str, Sequence[str]]]) -> list[list[float]]:
        """Score each evidence item of each triple alone, all in one batched pass.

        An item's score is its best window (-1 for an item with no sentence); the triple's
        score (`score_many`) is the best item's, so both come from the same logits.
        """
        import torch

        firsts, seconds, owners = [], [], []
        for index, (question, answer, evidence) in enumerate(items):
            for item, text in enumerate(evidence):
                for window in self.windows([text]):
                    firsts.append(support_input(question, answer))
                    seconds.append(window)
                    owners.append((index, item))
        best = [[-1.0] * len(evidence) for _, _, evidence in items]
        if not firsts:
            return best
        logits = torch.as_tensor(self.logits(firsts, seconds)).reshape(-1)
        for (owner, item), value in zip(
            owners, (2 * torch.sigmoid(logits) - 1).tolist(), strict=True
        ):
            best[owner][item] = max(best[owner][item], value)
        return best

    def score(self, question: str, answer: str, evidence: Sequence[str]) -> float:
        """Return the support score in [-1, 1]: the best over the evidence windows."""
        return self.score_many([(question, answer, evidence)])[0]

    def support(
        self, question: str, answer: str, evidence: Sequence[str]
    ) -> dict[SupportLevel, float]:
        """Return P(full), P(partial), P(none) from the score and the recorded thresholds."""
        return self.support_each(question, answer, evidence).levels

    def support_each(self, question: str, answer: str, evidence: Sequence[str]) -> SupportJudgement:
        """Return the support of all the evidence and each item's level, from one pass."""
        thresholds = self._thresholds()
        each = self.score_items([(question, answer, evidence)])[0]
        levels = support_distribution(max(each, default=-1.0), thresholds)
        return SupportJudgement(levels, [support_level(score, thresholds) for score in each])

    def _thresholds(self) -> SupportThresholds:
        from models.artifact import ArtifactError

        if self.thresholds is None:
            raise ArtifactError("the support artifact records no thresholds; calibrate it")
        return self.thresholds


_lock = threading.Lock()


@cache
def _load(folder: str) -> TrainedSupportJudge:
    from models.artifact import pair_logits

    with _lock:
        logits, manifest = pair_logits(Path(folder), kind=KIND)
    return TrainedSupportJudge(logits, manifest)


def load_support_judge(artifact: Path | None = None) -> TrainedSupportJudge:
    """Load the trained support judge (cached per folder); offline, CPU.

    Args:
        artifact: Artifact folder; the committed one by default.
    """
    return _load(str(Path(artifact or ARTIFACT_DIR).resolve()))
