import pytest
from langchain_core.globals import get_llm_cache, set_llm_cache

from bench.harness.llm_cache import install_llm_cache
from bench.harness.runner import SHARED_NAMESPACE, GraphRunner, read_outcome
from bench.harness.stages import STAGES
from graphs import build_graph
from nodes.finalize import NOT_IN_DOCUMENTS
from prompts.ircot import IRCOT_SYSTEM
from tests.fakes import (
    FakeClassifier,
    FakeRetriever,
    FakeWebSearch,
    FixedSupport,
    FixedUsefulness,
    KeywordEvaluator,
    local_doc,
    rule_model,
    web_doc,
)

DOCS = [
    local_doc("Paris is the capital of France.", title="Paris", position=1),
    local_doc("Berlin is the capital of Germany.", title="Berlin", position=2),
]


def fake_graph(generator, *, keywords=("Paris",), route="B"):
    return build_graph(
        generator=generator,
        rewriter=rule_model(default="France, capital"),
        retriever=FakeRetriever(documents=list(DOCS), queries=[]),
        web_search=FakeWebSearch(
            [
                web_doc(
                    "Paris is France's capital city.",
                    title="Paris",
                    url="https://en.wikipedia.org/wiki/Paris",
                )
            ]
        ),
        classifier=FakeClassifier(route),
        evaluator=KeywordEvaluator(keywords),
        support=FixedSupport("Paris"),
        usefulness=FixedUsefulness(),
    )


@pytest.fixture
def no_global_cache():
    before = get_llm_cache()
    yield
    set_llm_cache(before)


def generator():
    return rule_model(
        [("Answer:", "Paris"), (IRCOT_SYSTEM, "So the answer is: Paris.")], default="Paris"
    )


def test_strategies_force_their_route_and_count_calls(tmp_path):
    runner = GraphRunner(model="local", graph=fake_graph(generator()))
    closed = runner.run("What is the capital of France?", "no-retrieval", home=tmp_path)
    assert (closed.route, closed.retrieval_calls, closed.crag_action) == ("A", 0, None)
    assert closed.prediction == "Paris" and closed.abstained is False
    assert closed.llm_calls == 1
    single = runner.run("What is the capital of France?", "single", home=tmp_path)
    assert (single.route, single.retrieval_calls, single.crag_action) == ("B", 1, "Correct")
    assert single.prediction == "Paris"  # the bare answer: no markers, no sources
    assert single.seconds > 0


def test_plain_single_step_never_corrects(tmp_path):
    runner = GraphRunner(model="local", graph=fake_graph(generator(), keywords=("nothing",)))
    single = runner.run("What is the capital of France?", "single", home=tmp_path)
    assert (single.crag_action, single.web_searches) == ("Correct", 0)
    crag = runner.run("What is the capital of France?", "crag", home=tmp_path)
    assert (crag.crag_action, crag.web_searches, crag.retrieval_calls) == ("Incorrect", 1, 2)
    assert crag.llm_calls == 2  # the keyword rewrite and the answer


def test_ircot_runs_the_multi_step_route(tmp_path):
    runner = GraphRunner(model="local", graph=fake_graph(generator()))
    ircot = runner.run("What is the capital of France?", "ircot", home=tmp_path)
    assert ircot.route == "C" and ircot.crag_action is None
    assert ircot.retrieval_calls == 1  # the first sentence gave the answer
    assert ircot.prediction == "Paris"


def test_context_applies_settings_under_the_strategy(tmp_path):
    runner = GraphRunner(model="local", settings={"top_k": 7, "route": "A"}, graph=object())
    context = runner.context("single", home=tmp_path)
    assert (context.route, context.top_k, context.home) == ("B", 7, str(tmp_path))
    assert context.reflect is False and context.strip_mode == "passage"
    assert context.strips_top_k >= context.ircot_max_paragraphs
    assert runner.context("self-crag", home=tmp_path).reflect is True


def test_cached_rerun_counts_hits(tmp_path, no_global_cache):
    cache = install_llm_cache(tmp_path / "cache.sqlite")
    assert install_llm_cache(tmp_path / "cache.sqlite") is cache
    model = generator()
    runner = GraphRunner(model="local", graph=fake_graph(model), cache=cache)
    first = runner.run("What is the capital of France?", "single", home=tmp_path)
    calls = len(model.calls)
    second = runner.run("What is the capital of France?", "single", home=tmp_path)
    assert first.cache_hits == 0
    assert second.cache_hits == second.llm_calls == 1
    assert len(model.calls) == calls  # answered from the cache
    assert second.prediction == first.prediction


def test_read_outcome_reads_the_state_and_the_first_crag_action():
    state = {
        "answer": " Oslo ",
        "route": "B",
        "crag_action": "Correct",
        "retrievals": 2,
        "abstained": False,
        "candidates": [
            {"text": "Oslo", "logprob": -0.2, "verified": 0.9},
            {"text": "Bergen", "logprob": -0.1},
        ],
    }
    events = [
        {"type": "crag_action", "action": "Ambiguous"},
        {"type": "web_results"},
        {"type": "crag_action", "action": "Correct"},
    ]
    outcome = read_outcome(state, events)
    assert (outcome.prediction, outcome.route, outcome.crag_action) == ("Oslo", "B", "Ambiguous")
    assert (outcome.retrieval_calls, outcome.web_searches) == (3, 1)
    assert outcome.logprob == -0.2  # the chosen (first) candidate's confidence
    assert [c["text"] for c in outcome.candidates] == ["Oslo", "Bergen"]  # for agreement
    assert outcome.candidates[1]["logprob"] == -0.1
    assert outcome.candidates[0]["verified"] == 0.9 and "verified" not in outcome.candidates[1]
    assert read_outcome({"answer": "x"}, []).candidates == []
    assert read_outcome({"answer": "x"}, []).logprob is None
    assert read_outcome(state, []).crag_action == "Correct"  # no events: the state's action


def test_an_abstention_is_recorded_as_such(tmp_path):
    runner = GraphRunner(
        model="local",
        settings={"web_backend": "none"},
        graph=fake_graph(generator(), keywords=("nothing",)),
    )
    crag = runner.run("What is the capital of France?", "crag", home=tmp_path)
    assert crag.abstained is True and crag.prediction == NOT_IN_DOCUMENTS


def test_strategies_do_not_share_cached_answers(tmp_path, no_global_cache):
    cache = install_llm_cache(tmp_path / "cache.sqlite")
    model = generator()
    runner = GraphRunner(model="local", graph=fake_graph(model), cache=cache)
    runner.run("What is the capital of France?", "single", home=tmp_path)
    adaptive = runner.run("What is the capital of France?", "adaptive", home=tmp_path)
    assert adaptive.route == "B"  # the same request as `single`, but paid for again
    assert adaptive.cache_hits == 0


def test_warm_up_reaches_the_model_even_when_cached(tmp_path, no_global_cache):
    cache = install_llm_cache(tmp_path / "cache.sqlite")
    model = generator()
    runner = GraphRunner(model="local", graph=fake_graph(model), cache=cache)
    runner.warm_up(home=tmp_path)
    runner.warm_up(home=tmp_path)
    assert len(model.calls) == 2
    assert cache.bypass is False
    assert runner.run("What is the capital of France?", "crag", home=tmp_path).cache_hits == 0


def test_each_run_is_timed_per_stage_and_says_whether_it_started_cold(tmp_path):
    cold = GraphRunner(
        model="local", settings={"prompt_cache": False}, graph=fake_graph(generator())
    )
    outcome = cold.run("What is the capital of France?", "self-crag", home=tmp_path)
    assert cold.context("crag", home=tmp_path).prompt_cache is False
    assert outcome.cold_start is True
    assert list(outcome.stages) == list(STAGES)
    assert sum(outcome.stages.values()) == pytest.approx(outcome.seconds, abs=1e-3)
    assert outcome.stages["prompt"] == outcome.stages["decode"] == 0  # fakes report no timings
    warm = GraphRunner(model="local", graph=fake_graph(generator()))
    assert warm.run("What is the capital of France?", "single", home=tmp_path).cold_start is False


@pytest.mark.parametrize("shared", [True, False])
def test_shared_cache_keys_every_strategy_alike(tmp_path, no_global_cache, shared):
    cache = install_llm_cache(tmp_path / "cache.sqlite")
    runner = GraphRunner(
        model="local", graph=fake_graph(generator()), cache=cache, shared_cache=shared
    )
    first = runner.run("What is the capital of France?", "crag", home=tmp_path)
    assert cache.namespace == (SHARED_NAMESPACE if shared else "crag")
    again = runner.run("What is the capital of France?", "crag", home=tmp_path)
    assert first.prediction == again.prediction == "Paris"
    assert again.cache_hits == again.llm_calls  # the same request is answered once
