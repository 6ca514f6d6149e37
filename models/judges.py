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
    "EvidenceSupportChecker",
    "SupportChecker",
    "SupportJudgement",
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


@dataclass(frozen=True)
class SupportJudgement:
    """A support verdict on the whole evidence and, from the same pass, on each item alone."""

    levels: dict[SupportLevel, float]
    """P(full), P(partial), P(none) of the answer against all the evidence (as `support`)."""
    each: list[SupportLevel]
    """One level per evidence item, in order: how far that item alone supports the answer."""


@runtime_checkable
class EvidenceSupportChecker(SupportChecker, Protocol):
    """A support checker that also judges each evidence item, in the same (cheap) pass.

    `finalize` cites the items judged `full` or `partial`; a checker without this method (the
    LLM one: one prompt per item would multiply its calls) leaves citations to word overlap.
    """

    def support_each(self, question: str, answer: str, evidence: Sequence[str]) -> SupportJudgement:
        """Return the support of the whole evidence and the level of each item."""
        ...


@runtime_checkable
class UsefulnessJudge(Protocol):
    """Self-RAG's IsUse: how useful an answer is to the question, from 1 to 5."""

    def usefulness(self, question: str, answer: str) -> float:
        """Return a utility score in [1, 5]."""
        ...
