"""The one adapter between the benchmark and the acrag graph.

A `Runner` answers one question under one strategy and reports what it cost. `GraphRunner`
does it with the live graph: strategy name -> `Context` overrides -> stream the graph ->
read the prediction, route, CRAG action and counters from the events and the final state.
The peer baselines (`bench.baselines`) run the same way, through their own compiled graphs,
with the same callbacks, so their LLM calls, tokens and stage times (`bench.harness.stages`) are
counted identically.
Everything else in `bench` only sees `Outcome`, so following a change in the graph's API
means changing this module alone. Tests use a fake `Runner`.
"""

import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from bench.harness.llm_cache import CountingCache
from bench.harness.records import Outcome
from bench.harness.stages import StageTimer
from bench.harness.strategies import BASELINES, context_overrides
from models.defaults import role_models

__all__ = [
    "GraphRunner",
    "Outcome",
    "Runner",
    "StageTimer",
    "UsageCounter",
    "make_context",
    "read_outcome",
]

logger = logging.getLogger(__name__)

RECURSION_LIMIT = 120
SHARED_NAMESPACE = "shared"
"""The LLM cache namespace of strategies that share identical requests (`--shared-cache`)."""
_WARM_UP = "What is the capital of France?"


class Runner(Protocol):
    """Answers one question with one strategy against the index in `home`."""

    def run(self, question: str, strategy: str, *, home: Path) -> Outcome:
        """Return the prediction and counters."""
        ...


class UsageCounter(BaseCallbackHandler):
    """Count chat-model calls and their prompt and generated tokens."""

    def __init__(self) -> None:
        self.calls = 0
        self.prompt_tokens = 0
        self.generated_tokens = 0

    def on_chat_model_start(
        self, serialized: Any, messages: Any, *, run_id: UUID, **kwargs: Any
    ) -> None:
        """Count a chat-model call."""
        self.calls += 1

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Count a completion-model call."""
        self.calls += 1

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Add the call's token usage (also reported for cached responses)."""
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None) or {}
                self.prompt_tokens += int(usage.get("input_tokens", 0))
                self.generated_tokens += int(usage.get("output_tokens", 0))


def read_outcome(state: Mapping[str, Any], events: list[dict[str, Any]]) -> Outcome:
    """Read the prediction, route, CRAG action and retrieval counts from a finished run."""
    events = events or list(state.get("events") or [])
    actions = [e for e in events if e.get("type") == "crag_action"]
    webs = sum(e.get("type") == "web_results" for e in events)
    best = (state.get("candidates") or [{}])[0]  # finalize answers with the first
    return Outcome(
        prediction=str(state.get("answer") or "").strip(),
        route=state.get("route"),
        crag_action=actions[0]["action"] if actions else state.get("crag_action"),
        best_score=actions[0].get("best") if actions else None,
        abstained=bool(state.get("abstained")),
        logprob=best.get("logprob"),
        candidates=[
            {"text": c.get("text"), "logprob": c.get("logprob")}
            | ({"verified": c["verified"]} if "verified" in c else {})
            for c in state.get("candidates") or []
        ],
        retrieval_calls=int(state.get("retrievals") or 0) + webs,
        web_searches=webs,
    )


def make_context(strategy: str, *, model: str, settings: Mapping[str, Any], home: Path) -> Any:
    """Return the graph `Context` for `strategy`.

    Layers, later ones winning: the run's models (`role_models`), the local web backend and short
    answers (the papers score bare answers), the user's settings, then the strategy's own
    overrides.
    """
    from graphs import Context

    base: dict[str, Any] = {
        **role_models(model),
        "web_backend": "local",
        "answer_style": "short",
        **settings,
        "home": str(home),
    }
    return Context.from_settings({**base, **context_overrides(strategy, base)})


class GraphRunner:
    """Run the live acrag graph, one compiled graph for every strategy."""

    def __init__(
        self,
        *,
        model: str,
        settings: Mapping[str, Any] | None = None,
        cache: CountingCache | None = None,
        graph: Any | None = None,
        baselines: Mapping[str, Any] | None = None,
        shared_cache: bool = False,
    ) -> None:
        """Prepare the runner.

        Args:
            model: Chat model spec for every model role.
            settings: Further `Context` settings (a strategy's own overrides win over them).
            cache: The installed LLM cache, to count its hits per question.
            graph: A compiled graph to run (tests pass one built with fakes); by default
                `graphs.build_graph()`, which builds every collaborator from the Context.
            baselines: Compiled baseline graphs by strategy name (tests pass ones built with
                fakes); by default `bench.baselines.build_baselines()`.
            shared_cache: Strategies share cached LLM responses: a request identical to one
                another strategy made for the same question (same prompt, model and
                settings) is answered once. Off, each strategy caches apart.
        """
        from bench.baselines import build_baselines
        from graphs import build_graph

        self.model = model
        self.settings = dict(settings or {})
        self.cache = cache
        self.shared_cache = shared_cache
        self.graph = graph if graph is not None else build_graph()
        self.baselines = dict(baselines) if baselines is not None else build_baselines()

    def context(self, strategy: str, *, home: Path) -> Any:
        """Return the `Context` of one run of `strategy` over the index in `home`."""
        return make_context(strategy, model=self.model, settings=self.settings, home=home)

    def warm_up(self, *, home: Path) -> None:
        """Load the models and indexes once, so the first timed question does not pay for it."""
        started = time.perf_counter()
        if self.cache is not None:
            self.cache.bypass = True  # a cached answer would not load the model
        try:
            self.run(_WARM_UP, "crag", home=home)
        finally:
            if self.cache is not None:
                self.cache.bypass = False
        logger.info("warm-up took %.1fs", time.perf_counter() - started)

    def run(self, question: str, strategy: str, *, home: Path) -> Outcome:
        """Answer `question` with `strategy` and count its cost, timed per stage."""
        counter, timer = UsageCounter(), StageTimer()
        hits = self.cache.hits if self.cache else 0
        if self.cache is not None:
            self.cache.namespace = SHARED_NAMESPACE if self.shared_cache else strategy
        context = self.context(strategy, home=home)
        config = {"callbacks": [counter, timer], "recursion_limit": RECURSION_LIMIT}
        graph: Any = self.baselines[strategy] if strategy in BASELINES else self.graph
        started = time.perf_counter()
        outcome = _stream(graph, question, config, context)
        outcome.seconds = time.perf_counter() - started
        outcome.stages = timer.stages(outcome.seconds)
        outcome.cold_start = not context.prompt_cache
        outcome.llm_calls = counter.calls
        outcome.prompt_tokens = counter.prompt_tokens
        outcome.generated_tokens = counter.generated_tokens
        outcome.cache_hits = (self.cache.hits - hits) if self.cache else 0
        return outcome


def _stream(graph: Any, question: str, config: dict[str, Any], context: Any) -> Outcome:
    """Run the graph on one question and read its outcome (costs left for the caller)."""
    events: list[dict[str, Any]] = []
    state: dict[str, Any] = {}
    for namespace, mode, chunk in graph.stream(
        {"question": question},
        config,
        context=context,
        stream_mode=["custom", "values"],
        subgraphs=True,
    ):
        if mode == "custom":  # events of the IRCoT subgraph too
            events.append(chunk)
        elif not namespace:
            state = chunk
    return read_outcome(state, events)
