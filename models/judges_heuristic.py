"""Heuristic judges: fast, model-free (or embedding-only) baselines for every judge Protocol.

- `HeuristicClassifier`: question-shape rules (comparisons, nested relations -> C; chit-chat
  and arithmetic -> A; otherwise B), softened into probabilities.
- `HeuristicEvaluator`: MiniLM cosine blended with lexical overlap, mapped onto [-1, 1].
- `HeuristicSupportChecker`: how much of the answer's content appears in the evidence.
- `HeuristicUsefulness`: refusals and echoes of the question score low.
"""

import math
import re
from collections.abc import Sequence

from langchain_core.embeddings import Embeddings

from models.judges import Route, RouteDecision, SupportJudgement, SupportLevel
from models.text import claimed_words, content_tokens, stems

__all__ = [
    "HeuristicClassifier",
    "HeuristicEvaluator",
    "HeuristicSupportChecker",
    "HeuristicUsefulness",
]

_MULTI_HOP = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b(both|either|neither)\b",
        r"\b(first|earlier|older|younger|later|longer|shorter|taller|larger|bigger|more|fewer)\b"
        r".*\b(or)\b",
        r"\bsame (nationality|country|year|city|genre)\b|\bin common\b",
        r"\b(compare|comparison|difference between)\b",
        r"\b(father|mother|wife|husband|spouse|son|daughter|director|author|founder|creator|"
        r"performer|composer|producer|publisher|owner)\b of (the )?\w+.*\b(born|die|died|"
        r"nationality|country|located|founded|award)\b",
        r"\bof the (film|album|band|company|novel|song|team|show|book|series|director|author)\b.*"
        r"\b(of|by|in) the\b",
        r"\bthe (\w+ ){0,3}(film|person|singer|performer|band|war|county|city|country|state|"
        r"company|river|player|actor|actress|album|song|team|author|writer|man|woman) "
        r"(that|who|whose|which|where)\b",
        r"\b(spouse|wife|husband|father|mother|namesake|performer|producer|composer|founder|"
        r"creator|director) of (the|a|an)\b",
        r",[^,]+\bor\b[^,]+\?\s*$",
        r"^(\S+\s+){24,}",
    )
]
_NO_RETRIEVAL = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^\s*(hi|hello|hey|thanks|thank you)\b",
        r"^\s*(what is|what's|compute|calculate)?\s*[\d.]+\s*[-+*/x^]\s*[\d.]+\s*\??\s*$",
        r"^\s*(translate|rephrase|summari[sz]e|spell)\b",
        r"\btell me a (joke|story)\b",
    )
]


class HeuristicClassifier:
    """Route questions by their shape; probabilities are a softmax over rule counts."""

    def classify(self, questions: Sequence[str]) -> list[RouteDecision]:
        """Return one route decision per question."""
        return [self._one(question) for question in questions]

    def _one(self, question: str) -> RouteDecision:
        multi = sum(bool(p.search(question)) for p in _MULTI_HOP)
        simple = sum(bool(p.search(question)) for p in _NO_RETRIEVAL)
        logits: dict[Route, float] = {"A": 1.5 * simple, "B": 1.0, "C": 1.5 * multi}
        total = sum(math.exp(v) for v in logits.values())
        probabilities: dict[Route, float] = {k: math.exp(v) / total for k, v in logits.items()}
        route = max(probabilities, key=lambda k: probabilities[k])
        reason = {
            "A": "chit-chat or arithmetic: no retrieval needed",
            "B": "a single fact to look up",
            "C": f"{multi} multi-hop cue(s): comparison or nested relation",
        }[route]
        return RouteDecision(route, probabilities, reason)


class HeuristicEvaluator:
    """Score relevance as a blend of embedding cosine and query-term overlap, in [-1, 1].

    Args:
        embeddings: Sentence embeddings (MiniLM by default); None scores by overlap alone.
        center: The blended value that maps to 0.
        scale: How far from `center` the blend must move to reach -1 or +1.
    """

    def __init__(
        self, *, embeddings: Embeddings | None = None, center: float = 0.35, scale: float = 0.25
    ) -> None:
        self.embeddings = embeddings
        self.center = center
        self.scale = scale

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        """Return one score in [-1, 1] per passage."""
        if not passages:
            return []
        query = content_tokens(question)
        overlaps = [len(query & content_tokens(p)) / max(len(query), 1) for p in passages]
        if self.embeddings is None:
            blends = overlaps
        else:
            vectors = self.embeddings.embed_documents([question, *passages])
            cosines = [_cosine(vectors[0], v) for v in vectors[1:]]
            blends = [0.7 * c + 0.3 * o for c, o in zip(cosines, overlaps, strict=True)]
        return [max(-1.0, min(1.0, (b - self.center) / self.scale)) for b in blends]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class HeuristicSupportChecker:
    """Support = share of the answer's content words found in the evidence."""

    def support(
        self, question: str, answer: str, evidence: Sequence[str]
    ) -> dict[SupportLevel, float]:
        """Return P(full), P(partial), P(none), summing to one."""
        return _recall_levels(_recall(stems(claimed_words(answer, question)), evidence))

    def support_each(self, question: str, answer: str, evidence: Sequence[str]) -> SupportJudgement:
        """Return the support of all the evidence and of each item alone (its likeliest level)."""
        claimed = stems(claimed_words(answer, question))
        each = [_recall_levels(_recall(claimed, [text])) for text in evidence]
        levels = _recall_levels(_recall(claimed, evidence))
        return SupportJudgement(levels, [max(item, key=lambda k: item[k]) for item in each])


def _recall(claimed: set[str], evidence: Sequence[str]) -> float:
    found = stems(content_tokens(" ".join(evidence)))
    return len(claimed & found) / len(claimed) if claimed else 0.5


def _recall_levels(recall: float) -> dict[SupportLevel, float]:
    full, none = recall**2, (1.0 - recall) ** 2
    return {"full": full, "partial": 1.0 - full - none, "none": none}


_REFUSAL = re.compile(
    r"\b(i don't know|i do not know|not sure|cannot answer|can't answer|no information|"
    r"not mentioned|unable to)\b",
    re.IGNORECASE,
)


class HeuristicUsefulness:
    """Usefulness from 1 to 5: refusals, empty answers and echoes of the question score low."""

    def usefulness(self, question: str, answer: str) -> float:
        """Return a utility score in [1, 5]."""
        words = answer.split()
        if not words:
            return 1.0
        if _REFUSAL.search(answer):
            return 1.5
        new = content_tokens(answer) - content_tokens(question)
        score = 5.0 if new else 2.5
        if len(words) > 80:
            score -= 1.0
        return score
