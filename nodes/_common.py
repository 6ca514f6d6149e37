"""Helpers shared by the nodes.

Model calls kept out of the answer stream, judges asked with retries and a safe fallback,
passages rendered as tagged data.
"""

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from graphs.deps import Deps
from graphs.events import emit, fallback
from graphs.state import Passage, Strip
from models.registry import JudgeUnavailableError
from prompts.framing import as_attribute, as_data

__all__ = [
    "NOSTREAM",
    "ask_judge",
    "score_texts",
    "call_model",
    "format_passages",
    "mean_logprob",
    "text_of",
    "valid_scores",
    "with_retries",
]

NOSTREAM = ["nostream"]
"""Tag for model calls whose tokens must not reach the `messages` stream."""

T = TypeVar("T")


def call_model(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    max_tokens: int,
    name: str,
    stop: list[str] | None = None,
    stream: bool = False,
    **options: Any,
) -> AIMessage:
    """Invoke a chat model and return its message (streamed to the user only if `stream`)."""
    config: RunnableConfig = {"run_name": name} if stream else {"tags": NOSTREAM, "run_name": name}
    result = model.invoke(
        list(messages), config=config, stop=stop, max_tokens=max_tokens, **options
    )
    if not isinstance(result, AIMessage):
        raise ValueError(f"the model returned {type(result).__name__}, not a message")
    return result


def text_of(message: AIMessage) -> str:
    """Return a message's text content."""
    content = message.content
    if isinstance(content, str):
        return content.strip()
    return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content).strip()


def mean_logprob(message: AIMessage) -> float | None:
    """Return the mean token log-probability of a message, when the model reported them."""
    content = (message.response_metadata.get("logprobs") or {}).get("content") or []
    values = [e["logprob"] for e in content if isinstance(e, dict) and "logprob" in e]
    return sum(values) / len(values) if values else None


def with_retries(
    call: Callable[[], T], *, attempts: int, check: Callable[[T], bool] = lambda _: True
) -> tuple[T, None] | tuple[None, str]:
    """Run `call` up to `attempts` times until it returns something `check` accepts.

    Returns:
        The accepted value and None, or None and the last problem seen.
    """
    problem = "no attempt made"
    for _ in range(attempts):
        try:
            value = call()
        except Exception as error:  # noqa: BLE001 - any judge failure means "junk": retry
            problem = f"{type(error).__name__}: {error}"
            continue
        if check(value):
            return value, None
        problem = f"invalid output: {value!r}"[:300]
    return None, problem


def valid_scores(scores: object, count: int) -> bool:
    """Return whether `scores` is `count` finite floats in [-1, 1]."""
    return (
        isinstance(scores, list)
        and len(scores) == count
        and all(isinstance(s, int | float) and math.isfinite(s) and -1 <= s <= 1 for s in scores)
    )


def format_passages(items: Sequence[Passage | Strip]) -> str:
    """Render passages or strips as numbered, tagged data blocks (tag-breaking text escaped)."""
    blocks = [
        f'<passage id="{i}" title="{as_attribute(item["title"])}">\n'
        f"{as_data(item['text'].strip())}\n</passage>"
        for i, item in enumerate(items, start=1)
    ]
    return "\n".join(blocks)


def ask_judge(
    runtime: Runtime[Any],
    *,
    node: str,
    judge: str,
    get: Callable[[], Any],
    call: Callable[[Any], T],
    check: Callable[[T], bool] = lambda _: True,
    used: str,
) -> T | None:
    """Ask a judge (or model) with retries; on failure emit what was used instead.

    Returns:
        The judge's accepted answer, or None after a `fallback` event (whose `degraded`
        reason, set for a missing trained judge, the graph adds to the run's).

    Args:
        runtime: The node's runtime (its Context gives the attempts; events are streamed).
        node: The asking node, for the fallback event.
        judge: The judge's role, e.g. "evaluator".
        get: Builds the judge; a `JudgeUnavailableError` (a missing trained artifact)
            degrades the run instead of ending it.
        call: Asks the built judge.
        check: Accepts a valid answer; anything else counts as junk and is retried.
        used: What the node uses when the judge fails, said in the fallback event.
    """
    try:
        built, missing = get(), None
    except JudgeUnavailableError as error:
        built, missing = None, str(error)
    value, problem = (
        with_retries(lambda: call(built), attempts=runtime.context.judge_attempts, check=check)
        if built is not None
        else (None, missing or "no judge")
    )
    if value is None:
        emit(runtime, fallback(node, judge, problem or "unknown", used=used, degraded=missing))
    return value


def score_texts(
    runtime: Runtime[Any],
    deps: Deps,
    *,
    node: str,
    question: str,
    texts: list[str],
    used: str,
    action: bool = False,
) -> list[float] | None:
    """Score texts for the question with the retrieval evaluator (see `ask_judge`).

    With `action`, the evaluator that grades for CRAG's action (`Context.action_evaluator`).
    """
    context = runtime.context
    return ask_judge(
        runtime,
        node=node,
        judge="action evaluator" if action else "evaluator",
        get=lambda: deps.action_evaluator_for(context) if action else deps.evaluator_for(context),
        call=lambda evaluator: [float(s) for s in evaluator.score(question, texts)],
        check=lambda scores: valid_scores(scores, len(texts)),
        used=used,
    )
