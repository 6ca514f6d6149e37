"""The trained Adaptive-RAG complexity classifier (routes A, B, C).

`load_classifier()` rebuilds a MiniLM sequence classifier offline from the packaged base model
plus the committed artifact in `models/artifacts/classifier/` (see `acrag train classifier`).
"""

import threading
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from models.judges import Route, RouteDecision

__all__ = ["ARTIFACT_DIR", "TrainedClassifier", "load_classifier"]

ARTIFACT_DIR = Path(__file__).resolve().parent / "artifacts" / "classifier"
_ROUTES: tuple[Route, Route, Route] = ("A", "B", "C")


class TrainedClassifier:
    """A MiniLM classifier of question complexity: A (no retrieval), B (one), C (multi-step).

    `logits` maps questions to one row of three route logits each: the embedding head or the
    fine-tuned model, as the artifact's manifest says.
    """

    def __init__(self, logits: Callable[[Sequence[str]], Any], manifest: dict[str, Any]) -> None:
        self.logits, self.manifest = logits, manifest

    def probabilities(self, questions: Sequence[str]) -> list[dict[Route, float]]:
        """Return the probability of each route for each question (each sums to one)."""
        import torch

        if not questions:
            return []
        logits = torch.as_tensor(self.logits(list(questions))).reshape(len(questions), -1)
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


def _fine_tuned(folder: Path) -> TrainedClassifier:
    from models.artifact import load_artifact
    from models.batching import batched_logits

    model, tokenizer, manifest = load_artifact(folder, kind="classifier")
    length = int(manifest.get("max_length", 64))

    def logits(questions: Sequence[str]) -> Any:
        return batched_logits(model, tokenizer, questions, max_length=length)

    return TrainedClassifier(logits, manifest)


@cache
def _load(folder: str) -> TrainedClassifier:
    from models.artifact import WEIGHTS, read_manifest

    with _lock:
        manifest = read_manifest(Path(folder), kind="classifier")
        if manifest.get("architecture") != "embedding-head":
            return _fine_tuned(Path(folder))
        import torch

        from models.heads import embed_texts, load_route_head

        head = load_route_head(Path(folder) / WEIGHTS)

        def logits(questions: Sequence[str]) -> Any:
            vectors = embed_texts(questions)
            with torch.inference_mode():
                return head(torch.stack([vectors[q] for q in questions]))

        return TrainedClassifier(logits, manifest)


def load_classifier(artifact: Path | None = None) -> TrainedClassifier:
    """Load the trained classifier (cached per folder); offline, CPU."""
    return _load(str(Path(artifact or ARTIFACT_DIR).resolve()))
