"""The trained Adaptive-RAG complexity classifier (routes A, B, C).

`load_classifier()` rebuilds a MiniLM sequence classifier offline from the packaged base model
plus the committed artifact in `models/artifacts/classifier/` (see `acrag train classifier`).
"""

import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from models.judges import Route, RouteDecision

__all__ = ["ARTIFACT_DIR", "TrainedClassifier", "load_classifier"]

ARTIFACT_DIR = Path(__file__).resolve().parent / "artifacts" / "classifier"
_ROUTES: tuple[Route, Route, Route] = ("A", "B", "C")


class TrainedClassifier:
    """A MiniLM classifier of question complexity: A (no retrieval), B (one), C (multi-step)."""

    def __init__(
        self, model: Any, tokenizer: Any, manifest: dict[str, Any], *, batch_size: int = 64
    ) -> None:
        self.model, self.tokenizer, self.manifest = model, tokenizer, manifest
        self.batch_size = batch_size
        self.max_length = int(manifest.get("max_length", 64))

    def probabilities(self, questions: Sequence[str]) -> list[dict[Route, float]]:
        """Return the probability of each route for each question (each sums to one)."""
        import torch

        from models.training.loop import batched_logits

        logits = batched_logits(
            self.model,
            self.tokenizer,
            list(questions),
            batch_size=self.batch_size,
            max_length=self.max_length,
        )
        probs = torch.softmax(logits.double(), dim=-1).tolist()
        return [{route: row[i] for i, route in enumerate(_ROUTES)} for row in probs]

    def classify(self, questions: Sequence[str]) -> list[RouteDecision]:
        """Return one route decision per question: the most probable route."""
        decisions = []
        for probs in self.probabilities(questions):
            route = max(_ROUTES, key=probs.__getitem__)
            reason = f"trained classifier: {route} (p={probs[route]:.2f})"
            decisions.append(RouteDecision(route=route, probabilities=probs, reason=reason))
        return decisions


_lock = threading.Lock()


@cache
def _load(folder: str) -> TrainedClassifier:
    from models.training.artifact import load_artifact

    with _lock:
        model, tokenizer, manifest = load_artifact(Path(folder), kind="classifier")
        return TrainedClassifier(model, tokenizer, manifest)


def load_classifier(artifact: Path | None = None) -> TrainedClassifier:
    """Load the trained classifier (cached per folder); offline, CPU."""
    return _load(str(Path(artifact or ARTIFACT_DIR).resolve()))
