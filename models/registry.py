"""Every judge implementation by kind and role: the one place that names them.

`graphs.deps` asks `build_judge` for the judge a run's `Context` chooses; the trained judges
load their committed artifacts, and a missing or broken one raises `JudgeUnavailableError`,
which the graph turns into a degraded run rather than a failed one.
"""

from collections.abc import Callable
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from models import judges_heuristic as heuristic
from models import judges_llm as llm
from models.classifier import load_classifier
from models.errors import UserError
from models.evaluator import load_evaluator
from models.support import load_support_judge

__all__ = ["LLM_JUDGES", "TRAINED_JUDGES", "JudgeUnavailableError", "Role", "build_judge"]

Role = Literal["classifier", "evaluator", "support", "usefulness"]
"""What a judge does in the graph."""


class JudgeUnavailableError(UserError):
    """A judge was chosen whose implementation or artifacts are not installed."""


TRAINED_JUDGES: dict[str, Callable[[], Any]] = {
    "classifier": load_classifier,
    "evaluator": load_evaluator,
    "support": load_support_judge,
}
"""The trained judges' loaders (each reads its committed artifact)."""

LLM_JUDGES: dict[str, Callable[[BaseChatModel], Any]] = {
    "classifier": llm.LlmClassifier,
    "evaluator": llm.LlmEvaluator,
    "support": llm.LlmSupportChecker,
    "usefulness": llm.LlmUsefulness,
}
"""The LLM judges, each built around the judge chat model."""


def _trained(role: str) -> Any:
    try:
        return TRAINED_JUDGES[role]()
    except (ImportError, AttributeError, FileNotFoundError) as error:
        raise JudgeUnavailableError(
            f"the trained {role} is not available ({error}); choose 'heuristic' or 'llm'"
        ) from error


def build_judge(
    kind: str,
    role: str,
    *,
    chat: Callable[[], BaseChatModel],
    embeddings: Callable[[], Embeddings],
) -> Any:
    """Return the `kind` ("trained", "heuristic" or "llm") implementation of `role`.

    Args:
        kind: The implementation the Context names.
        role: The judge's role (see `Role`).
        chat: Returns the judge chat model (called only for an LLM judge).
        embeddings: Returns the sentence embedder (called only for the heuristic evaluator).

    Raises:
        JudgeUnavailableError: No such implementation, or its artifact is missing.
    """
    match kind, role:
        case "trained", "classifier" | "evaluator" | "support":
            return _trained(role)
        case "heuristic", "classifier":
            return heuristic.HeuristicClassifier()
        case "heuristic", "evaluator":
            return heuristic.HeuristicEvaluator(embeddings=embeddings())
        case "heuristic", "support":
            return heuristic.HeuristicSupportChecker()
        case "heuristic", "usefulness":
            return heuristic.HeuristicUsefulness()
        case "llm", _ if role in LLM_JUDGES:
            return LLM_JUDGES[role](chat())
    raise JudgeUnavailableError(f"no {kind!r} implementation for the {role}")
