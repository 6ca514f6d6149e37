"""LLM-prompted judges: the configured chat model answers each Protocol through a JSON schema.

The backend constrains decoding to the schema, so even a tiny model returns a valid choice;
when the model reports token log-probabilities (llama.cpp, OpenAI), the judges read the
probability of each choice at the value token instead of trusting the single sampled one.
DESIGN.md warns that SmolLM2-135M judges poorly: prefer a stronger `judge_model` here.
"""

import math
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from models.judges import Route, RouteDecision, SupportLevel
from prompts.framing import as_data
from prompts.judges import (
    CHECK_SUPPORT,
    CLASSIFY_QUESTION,
    GRADE_PASSAGE,
    JUDGE_SYSTEM,
    RATE_USEFULNESS,
)

__all__ = [
    "LlmClassifier",
    "LlmEvaluator",
    "LlmSupportChecker",
    "LlmUsefulness",
    "ask_choice",
    "choice_probabilities",
]

_STEPS_TO_ROUTE: dict[str, Route] = {"none": "A", "one": "B", "several": "C"}


def _schema(key: str, options: Sequence[str]) -> dict[str, Any]:
    return {
        "title": "verdict",
        "type": "object",
        "properties": {key: {"type": "string", "enum": list(options)}},
        "required": [key],
        "additionalProperties": False,
    }


def _clean(token: str) -> str:
    return token.strip(' "\n').lower()


def choice_probabilities(raw: AIMessage, options: Sequence[str]) -> dict[str, float] | None:
    """Read the options' probabilities at the first token starting one, if logprobs are present."""
    content = (raw.response_metadata.get("logprobs") or {}).get("content") or []
    for entry in content:
        token = _clean(entry.get("token", ""))
        if token and any(o.startswith(token) for o in options):
            mass = dict.fromkeys(options, 0.0)
            for top in entry.get("top_logprobs") or [entry]:
                candidate = _clean(top.get("token", ""))
                match = next((o for o in options if candidate and o.startswith(candidate)), None)
                if match is not None:
                    mass[match] += math.exp(top.get("logprob", -math.inf))
            total = sum(mass.values())
            return {k: v / total for k, v in mass.items()} if total > 0 else None
    return None


def ask_choice(
    model: BaseChatModel, prompt: str, key: str, options: Sequence[str]
) -> dict[str, float]:
    """Ask `model` to pick one of `options`; return a probability per option.

    Raises:
        ValueError: The model returned no valid choice (the graph retries, then falls back).
    """
    extra = {"logprobs": True, "top_logprobs": 5} if "logprobs" in type(model).model_fields else {}
    runnable = model.with_structured_output(
        _schema(key, options), include_raw=True, **extra
    ).with_config(tags=["nostream"], run_name="judge")
    result: Any = runnable.invoke([SystemMessage(JUDGE_SYSTEM), HumanMessage(prompt)])
    if not isinstance(result, dict):
        raise ValueError(f"the judge returned {type(result).__name__}, not a verdict")
    parsed = result.get("parsed")
    choice = parsed.get(key) if isinstance(parsed, dict) else None
    if choice not in options:
        raise ValueError(f"the judge returned no valid {key!r}: {parsed!r}")
    raw = result.get("raw")
    found = choice_probabilities(raw, options) if isinstance(raw, AIMessage) else None
    return found or {o: float(o == choice) for o in options}


class LlmClassifier:
    """Ask the model how many searches a question needs (none / one / several -> A / B / C)."""

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    def classify(self, questions: Sequence[str]) -> list[RouteDecision]:
        """Return one route decision per question."""
        decisions = []
        for question in questions:
            probs = ask_choice(
                self.model,
                CLASSIFY_QUESTION.format(question=question),
                "steps",
                list(_STEPS_TO_ROUTE),
            )
            by_route: dict[Route, float] = {_STEPS_TO_ROUTE[k]: v for k, v in probs.items()}
            route = max(by_route, key=lambda r: by_route[r])
            decisions.append(RouteDecision(route, by_route, "the judge model's estimate"))
        return decisions


class LlmEvaluator:
    """Relevance as P(yes) - P(no) from the model, in [-1, 1]."""

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        """Return one score in [-1, 1] per passage."""
        scores = []
        for passage in passages:
            prompt = GRADE_PASSAGE.format(question=question, passage=as_data(passage))
            probs = ask_choice(self.model, prompt, "relevant", ["yes", "no"])
            scores.append(probs["yes"] - probs["no"])
        return scores


class LlmSupportChecker:
    """IsSup from the model: full / partial / none."""

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    def support(
        self, question: str, answer: str, evidence: Sequence[str]
    ) -> dict[SupportLevel, float]:
        """Return a probability per support level."""
        prompt = CHECK_SUPPORT.format(
            question=question, answer=answer, evidence=as_data("\n".join(evidence))
        )
        probs = ask_choice(self.model, prompt, "support", ["full", "partial", "none"])
        return {"full": probs["full"], "partial": probs["partial"], "none": probs["none"]}


class LlmUsefulness:
    """IsUse from the model: the expected rating from 1 to 5."""

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    def usefulness(self, question: str, answer: str) -> float:
        """Return a utility score in [1, 5]."""
        prompt = RATE_USEFULNESS.format(question=question, answer=answer)
        probs = ask_choice(self.model, prompt, "usefulness", ["1", "2", "3", "4", "5"])
        return sum(int(k) * v for k, v in probs.items())
