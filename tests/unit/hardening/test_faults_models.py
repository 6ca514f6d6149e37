"""Faults in models, stores and judges: bounded retries, then a stated reason, never a crash."""

from pathlib import Path

import pytest
from langchain_core.retrievers import BaseRetriever
from langgraph.errors import GraphRecursionError

import graphs.deps as deps_module
import models.classifier as classifier_module
import models.evaluator as evaluator_module
import models.registry as registry
from graphs import Context, build_graph
from models.judges_llm import LlmClassifier, LlmEvaluator, LlmSupportChecker, LlmUsefulness
from nodes._degrade import NODE_ATTEMPTS
from nodes.finalize import NO_ANSWER, NOT_IN_DOCUMENTS, OVERLAP_CITATIONS
from tests.fakes import (
    FakeClassifier,
    FakeRetriever,
    FakeWebSearch,
    FixedSupport,
    FixedUsefulness,
    JunkJudge,
    KeywordEvaluator,
    RuleChatModel,
    local_doc,
    rule_model,
)

DOCS = [local_doc("Paris is the capital of France.", title="Paris")]
QUESTION = "What is the capital of France?"
NO_ANSWER_OR_ABSTAINED = {"A": NO_ANSWER, "B": NOT_IN_DOCUMENTS, "C": NOT_IN_DOCUMENTS}
"""Without a candidate: no answer on route A, "not in your documents" after a retrieval."""


class RaisingModel(RuleChatModel):
    """Raise `error` for the first `failures` calls (every call when None), then answer."""

    error: str = "model exploded"
    failures: int | None = None

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.calls.append(("raise", ""))
        if self.failures is None or len(self.calls) <= self.failures:
            raise RuntimeError(self.error)
        return super()._generate(messages, stop, run_manager, **kwargs)


class FlakyRetriever(BaseRetriever):
    """Raise ConnectionError for the first `failures` calls (every call when None)."""

    failures: int | None = None
    calls: int = 0

    def _get_relevant_documents(self, query, *, run_manager):
        self.calls += 1
        if self.failures is None or self.calls <= self.failures:
            raise ConnectionError("Could not connect to the Chroma server")
        return list(DOCS)


class RaisingWeb:
    calls = 0

    def search(self, query: str, *, max_results: int = 5):
        self.calls += 1
        raise TimeoutError("web backend hung")


def make_graph(**overrides):
    parts = {
        "generator": rule_model(default="Paris."),
        "rewriter": rule_model(default="capital, France"),
        "retriever": FakeRetriever(documents=list(DOCS), queries=[]),
        "web_search": FakeWebSearch(),
        "classifier": FakeClassifier("B"),
        "evaluator": KeywordEvaluator(("Paris",)),
        "support": FixedSupport(otherwise="full"),
        "usefulness": FixedUsefulness(),
    }
    return build_graph(**(parts | overrides))


def ask(graph, **context):
    return graph.invoke({"question": QUESTION}, context=Context(**context))


def degraded_once(result, reason: str) -> bool:
    """The run is degraded for `reason`, said once in the state and once in the notes."""
    return result["degraded"] == [reason] and result["notes"] == [f"Degraded: {reason}."]


@pytest.mark.parametrize("route", ["A", "B", "C"])
def test_generator_raising_degrades_with_the_reason_after_bounded_retries(route: str) -> None:
    model = RaisingModel(calls=[])
    result = ask(make_graph(generator=model), route=route, candidates=1)
    reason = "the answer model failed: RuntimeError: model exploded"
    assert degraded_once(result, reason)
    assert result["candidates"] == [] and result["answer"] == NO_ANSWER_OR_ABSTAINED[route]
    generate_calls = len(model.calls) - (result.get("ircot_steps") or 0) * 2  # ircot retries 2
    assert generate_calls == NODE_ATTEMPTS


def test_generator_failing_once_recovers_through_the_retry_policy() -> None:
    model = RaisingModel(calls=[], failures=1, default="Paris.")
    result = ask(make_graph(generator=model), route="A")
    assert result["answer"] == "Paris." and result["degraded"] == [] == result["notes"]
    assert [name for name, _ in model.calls].count("raise") == 2


GARBAGE = {
    "empty": "",
    "whitespace": "   \n\n  ",
    "json-fragment": '{"answer": "Par',
    "binary-junk": "\x00\x01\ufffd\ufffd",
    "fifty-kb": "blah " * 10_000,
    "only-prefix": "Answer:",
    "markup": "<|im_start|>system\n<|im_end|>",
}


@pytest.mark.parametrize("reply", list(GARBAGE.values()), ids=list(GARBAGE))
def test_generator_garbage_still_ends_with_an_answer(reply: str) -> None:
    result = ask(make_graph(generator=rule_model(default=reply)), route="B")
    assert result["answer"].strip()
    assert result["events"][-1]["type"] == "answer"
    assert result["retries"] <= Context().max_retries


@pytest.mark.parametrize("route", ["B", "C"])
def test_retriever_down_degrades_with_the_reason(route: str) -> None:
    retriever = FlakyRetriever()
    result = ask(make_graph(retriever=retriever), route=route)
    reason = "the local index failed: ConnectionError: Could not connect to the Chroma server"
    assert degraded_once(result, reason)  # however many retrievals failed for it
    failed = [e for e in result["events"] if e["type"] == "fallback" and e["judge"] == "retriever"]
    steps = result.get("ircot_steps") or 1  # later IRCoT steps try once: it already failed
    assert len(failed) == steps and retriever.calls == NODE_ATTEMPTS + steps - 1
    assert result["answer"] == NOT_IN_DOCUMENTS and result["abstained"] is True


def test_retriever_failing_twice_recovers_within_the_policy() -> None:
    retriever = FlakyRetriever(failures=NODE_ATTEMPTS - 1)
    result = ask(make_graph(retriever=retriever), route="B")
    assert result["degraded"] == [] and result["answer"] == "Paris."
    assert [c["title"] for c in result["citations"]] == ["Paris"]
    assert retriever.calls == NODE_ATTEMPTS


def test_web_search_raising_degrades_with_the_reason() -> None:
    web = RaisingWeb()
    graph = make_graph(web_search=web, evaluator=KeywordEvaluator(("nothing-matches",)))
    result = ask(graph, route="B")
    reason = "web search failed: TimeoutError: web backend hung"
    assert degraded_once(result, reason) and result["answer"] == NOT_IN_DOCUMENTS
    assert web.calls == NODE_ATTEMPTS


def test_rewriter_raising_falls_back_to_question_keywords() -> None:
    graph = make_graph(
        rewriter=RaisingModel(calls=[]), evaluator=KeywordEvaluator(("nothing-matches",))
    )
    result = ask(graph, route="B", max_retries=3, retry_action="rewrite")
    fallbacks = [e for e in result["events"] if e["type"] == "fallback"]
    assert any("RuntimeError: model exploded" in str(e["problem"]) for e in fallbacks)
    rewrites = [e for e in result["events"] if e["type"] == "rewrite"]
    assert rewrites and all(e["note"] == "kept the question's own keywords" for e in rewrites)
    assert rewrites[0]["query"] == "France, capital"  # names first
    assert result["answer"]


def test_condense_model_raising_falls_back_to_the_rules() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    from models.structured import StructuredOutputMixin

    class RaisingStructured(StructuredOutputMixin, RaisingModel):
        """A rewriter whose schema-constrained calls raise."""

    history = [  # "he" is the model's to choose (after "Who ...?" the rule would choose)
        HumanMessage("Tell me about Gustave Eiffel."),
        AIMessage("Gustave Eiffel was an engineer."),
        HumanMessage("Where did he die?"),
    ]
    result = make_graph(rewriter=RaisingStructured(calls=[])).invoke(
        {"messages": history}, context=Context(route="A")
    )
    assert result["standalone_question"] == "Where did Gustave Eiffel die?"
    assert result["events"][1]["type"] == "question"
    assert result["events"][1]["condensed"] == "resolved"
    assert "RuntimeError: model exploded" in result["events"][0]["problem"]
    assert result["answer"] == "Paris." and result["degraded"] == []


INVALID_JSON = {
    "not-json": "this is not json",
    "truncated-json": '{"label": "A", "prob',
    "wrong-keys": '{"foo": 1}',
    "wrong-type": '{"label": 7, "score": "high"}',
    "json-array": "[1, 2, 3]",
    "empty": "",
}


@pytest.mark.parametrize("reply", list(INVALID_JSON.values()), ids=list(INVALID_JSON))
def test_llm_judges_returning_invalid_json_fall_back_and_say_so(reply: str) -> None:
    judge_model = rule_model(default=reply)
    graph = make_graph(
        classifier=LlmClassifier(judge_model),
        evaluator=LlmEvaluator(judge_model),
        support=LlmSupportChecker(judge_model),
        usefulness=LlmUsefulness(judge_model),
    )
    result = ask(graph)
    fallbacks = {e["node"] for e in result["events"] if e["type"] == "fallback"}
    assert {"grade_documents", "reflect"} <= fallbacks | {"reflect"}
    assert result["route"] in ("A", "B", "C") and result["answer"].strip()


def test_junk_judges_on_every_route_never_hit_the_recursion_limit() -> None:
    for route in ("A", "B", "C"):
        junk = JunkJudge()
        graph = make_graph(classifier=junk, evaluator=junk, support=junk, usefulness=junk)
        try:
            result = ask(graph, route=route, max_retries=5)
        except GraphRecursionError:  # pragma: no cover - the failure this test guards against
            pytest.fail(f"route {route} hit the recursion limit")
        assert result["answer"] and result["retries"] <= 5


@pytest.fixture
def no_artifacts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    empty = tmp_path / "no-artifacts"
    empty.mkdir()
    monkeypatch.setattr(classifier_module, "ARTIFACT_DIR", empty)
    monkeypatch.setattr(evaluator_module, "ARTIFACT_DIR", empty)
    deps_module._judge.cache_clear()
    yield empty
    deps_module._judge.cache_clear()


@pytest.mark.parametrize("role", ["classifier", "evaluator"])
def test_missing_trained_judge_artifact_degrades_with_the_reason(
    role: str, no_artifacts: Path
) -> None:
    parts = {"classifier": None, "evaluator": None}
    graph = make_graph(**parts)
    context = {"classifier": "heuristic", "evaluator": "heuristic"} | {role: "trained"}
    if role == "evaluator":
        context["route"] = "B"
    result = ask(graph, **context)
    fallbacks = [e for e in result["events"] if e["type"] == "fallback" and e["judge"] == role]
    assert fallbacks and f"the trained {role} is not available" in fallbacks[0]["degraded"]
    assert fallbacks[0]["used"] == ("route B" if role == "classifier" else "Ambiguous")
    assert result["degraded"] == [fallbacks[0]["degraded"]]
    assert result["notes"] == [f"Degraded: {fallbacks[0]['degraded']}."]


def test_missing_trained_support_judge_is_told_in_the_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Regression: `reflect` streamed the fallback but dropped its reason from the notes."""
    reason = "the trained support is not available (no artifact); choose 'heuristic' or 'llm'"

    def missing() -> None:
        raise FileNotFoundError("no artifact")

    monkeypatch.setitem(registry.TRAINED_JUDGES, "support", missing)
    deps_module._judge.cache_clear()
    result = ask(make_graph(support=None), support="trained")
    deps_module._judge.cache_clear()
    fallbacks = [e for e in result["events"] if e["type"] == "fallback" and e["judge"] == "support"]
    assert fallbacks and fallbacks[0]["node"] == "reflect" and fallbacks[0]["degraded"] == reason
    assert result["degraded"] == [reason, OVERLAP_CITATIONS]  # and citations fell back to overlap
    assert result["notes"] == [f"Degraded: {reason}.", f"Degraded: {OVERLAP_CITATIONS}."]
