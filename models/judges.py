"""The judge interfaces: what the graph asks of a classifier, an evaluator and a critic.

Heuristic, LLM-prompted and trained implementations all satisfy these protocols, and the
graph's `Context` chooses among them by name.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

__all__ = [
    "ComplexityClassifier",
    "Route",
    "RouteDecision",
    "RetrievalEvaluator",
    "SupportChecker",
    "SupportLevel",
    "UsefulnessJudge",
]

Route = Literal["A", "B", "C"]
"""A: answer without retrieval; B: one retrieval; C: multi-step retrieval (IRCoT)."""

SupportLevel = Literal["full", "partial", "none"]


@dataclass(frozen=True)
class RouteDecision:
    """A classifier's verdict: the route and the probability of each route."""

    route: Route
    probabilities: dict[Route, float] = field(default_factory=dict)
    reason: str = ""


@runtime_checkable
class ComplexityClassifier(Protocol):
    """Adaptive-RAG's query-complexity classifier."""

    def classify(self, questions: Sequence[str]) -> list[RouteDecision]:
        """Return one route decision per question."""
        ...


@runtime_checkable
class RetrievalEvaluator(Protocol):
    """CRAG's retrieval evaluator: relevance of each (question, passage) pair in [-1, 1]."""

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        """Return one score in [-1, 1] per passage (higher is more relevant)."""
        ...


@runtime_checkable
class SupportChecker(Protocol):
    """Self-RAG's IsSup: how far the evidence supports an answer."""

    def support(
        self, question: str, answer: str, evidence: Sequence[str]
    ) -> dict[SupportLevel, float]:
        """Return a probability for each support level (they sum to one)."""
        ...


@runtime_checkable
class UsefulnessJudge(Protocol):
    """Self-RAG's IsUse: how useful an answer is to the question, from 1 to 5."""

    def usefulness(self, question: str, answer: str) -> float:
        """Return a utility score in [1, 5]."""
        ...
