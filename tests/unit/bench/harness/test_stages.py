from typing import Any, TypedDict

import pytest
from langchain_core.globals import get_llm_cache, set_llm_cache
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph import END, START, StateGraph

from bench.harness.llm_cache import install_llm_cache
from bench.harness.stages import STAGES, StageTimer


class Clock:
    """A clock that moves only when told: node and model work advance it by set amounts."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class TimedModel(BaseChatModel):
    """Take `seconds` of the clock per call and report llama.cpp timings (or none)."""

    clock: Any
    seconds: float = 0.75
    timings: dict[str, float] | None = {"prompt_ms": 500.0, "predicted_ms": 250.0}

    @property
    def _llm_type(self) -> str:
        return "timed-fake"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
        self.clock.advance(self.seconds)
        metadata = {"timings": self.timings} if self.timings else {}
        message = AIMessage("ok", response_metadata=metadata)
        return ChatResult(generations=[ChatGeneration(message=message)])


class S(TypedDict, total=False):
    question: str


def working(clock: Clock, seconds: float, model: BaseChatModel | None = None) -> Any:
    """Return a node that works `seconds` on its own, then calls `model` if given."""

    def node(state: S) -> dict[str, Any]:
        clock.advance(seconds)
        if model is not None:
            model.invoke(f"{seconds}: {state['question']}")  # each node's own prompt
        return {}

    return node


def chain(builder: StateGraph, names: list[str]) -> None:
    for first, second in zip([START, *names], [*names, END], strict=True):
        builder.add_edge(first, second)


def nested_graph(clock: Clock, model: BaseChatModel) -> Any:
    """condense -> retrieve -> ircot [retrieve -> ircot_step (LLM)] -> generate (LLM) -> reflect."""
    loop = StateGraph(S)
    loop.add_node("retrieve", working(clock, 1.0))
    loop.add_node("ircot_step", working(clock, 0.25, model))
    chain(loop, ["retrieve", "ircot_step"])
    outer = StateGraph(S)
    outer.add_node("condense_question", working(clock, 1.0))
    outer.add_node("retrieve", working(clock, 2.0))
    outer.add_node("ircot", loop.compile(name="ircot"))  # named like its node, as acrag's is
    outer.add_node("generate", working(clock, 0.5, model))
    outer.add_node("reflect", working(clock, 0.5))
    chain(outer, ["condense_question", "retrieve", "ircot", "generate", "reflect"])
    return outer.compile(name="acrag")


def timed_run(graph: Any, clock: Clock) -> tuple[dict[str, float], float]:
    timer = StageTimer(clock=clock)
    started = clock()
    graph.invoke({"question": "q"}, {"callbacks": [timer]})
    seconds = clock() - started
    return timer.stages(seconds), seconds


def test_node_time_goes_to_the_innermost_node_and_llm_time_to_prompt_and_decode():
    clock = Clock()
    stages, seconds = timed_run(nested_graph(clock, TimedModel(clock=clock)), clock)
    assert seconds == pytest.approx(6.75)
    assert stages == {
        "routing": 1.0,
        "retrieval": 3.0,  # the outer retrieve and the one inside IRCoT, counted once each
        "evaluator": 0.0,
        "strips": 0.0,
        "critique": 0.5,
        "prompt": 1.0,  # two calls of 0.5 s prompt evaluation
        "decode": 0.5,
        "other": 0.75,  # ircot_step's and generate's own time outside the model
    }
    assert list(stages) == list(STAGES)
    assert sum(stages.values()) == pytest.approx(seconds)


def test_a_response_without_timings_adds_no_model_time():
    clock = Clock()
    model = TimedModel(clock=clock, timings=None)
    stages, seconds = timed_run(nested_graph(clock, model), clock)
    assert stages["prompt"] == stages["decode"] == 0.0
    assert stages["other"] == pytest.approx(0.75 + 1.5)  # the calls' time stays in their nodes
    assert sum(stages.values()) == pytest.approx(seconds)


def test_a_retried_node_is_timed_on_every_attempt():
    clock = Clock()
    attempts = []

    def flaky(state: S) -> dict[str, Any]:
        clock.advance(1.0)
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("store down")
        return {}

    from langgraph.types import RetryPolicy

    builder = StateGraph(S)
    builder.add_node("retrieve", flaky, retry_policy=RetryPolicy(initial_interval=0, jitter=False))
    chain(builder, ["retrieve"])
    stages, seconds = timed_run(builder.compile(), clock)
    assert stages["retrieval"] == pytest.approx(2.0) == pytest.approx(seconds)


@pytest.fixture
def no_global_cache():
    before = get_llm_cache()
    yield
    set_llm_cache(before)


def test_answers_replayed_from_the_llm_cache_are_not_model_time(tmp_path, no_global_cache):
    install_llm_cache(tmp_path / "cache.sqlite")
    clock = Clock()
    graph = nested_graph(clock, TimedModel(clock=clock))
    first, _ = timed_run(graph, clock)
    again, _ = timed_run(graph, clock)
    assert (first["prompt"], first["decode"]) == (1.0, 0.5)
    assert (again["prompt"], again["decode"]) == (0.0, 0.0)
