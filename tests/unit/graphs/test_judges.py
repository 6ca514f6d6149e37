import math

import pytest

from graphs.context import Context
from graphs.deps import Deps, JudgeUnavailableError, make_classifier, make_evaluator
from models.judges import (
    ComplexityClassifier,
    EvidenceSupportChecker,
    RetrievalEvaluator,
    UsefulnessJudge,
)
from models.judges_heuristic import (
    HeuristicClassifier,
    HeuristicEvaluator,
    HeuristicSupportChecker,
    HeuristicUsefulness,
)
from models.judges_llm import LlmClassifier, LlmEvaluator, LlmSupportChecker, LlmUsefulness
from tests.fakes import llamacpp_with


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("Who was born first, Ada Lovelace or Charles Babbage?", "C"),
        ("Are both Bolt and Lewis sprinters from the same country?", "C"),
        ("Where was the director of the film Jaws born?", "C"),
        ("What is 12 * 7?", "A"),
        ("Hello there!", "A"),
        ("What is the capital of Australia?", "B"),
        ("When did the Eiffel Tower open?", "B"),
    ],
)
def test_heuristic_classifier_routes_by_shape(question, route):
    decision = HeuristicClassifier().classify([question])[0]
    assert decision.route == route
    assert math.isclose(sum(decision.probabilities.values()), 1.0)
    assert decision.probabilities[route] == max(decision.probabilities.values())


class BagEmbeddings:
    """Bag-of-words vectors over a tiny vocabulary: cosine tracks shared words."""

    vocabulary = ["paris", "capital", "france", "river", "bread", "city"]

    def embed_documents(self, texts):
        return [[float(w in t.lower()) + 1e-6 for w in self.vocabulary] for t in texts]

    def embed_query(self, text):
        return self.embed_documents([text])[0]


def test_heuristic_evaluator_ranks_relevant_passages_higher():
    passages = ["Paris is the capital city of France.", "Bread is baked from flour."]
    for evaluator in (HeuristicEvaluator(), HeuristicEvaluator(embeddings=BagEmbeddings())):
        relevant, irrelevant = evaluator.score("What is the capital of France?", passages)
        assert -1 <= irrelevant < relevant <= 1
        assert irrelevant == -1.0
    assert HeuristicEvaluator().score("q", []) == []


def test_heuristic_support_and_usefulness():
    checker = HeuristicSupportChecker()
    full = checker.support("Capital of France?", "Paris", ["Paris is the capital of France."])
    none = checker.support("Capital of France?", "Lyon", ["Paris is the capital of France."])
    assert full["full"] == 1.0 and none["none"] == 1.0
    assert math.isclose(sum(checker.support("q", "Paris and Lyon", ["Paris"]).values()), 1.0)
    evidence = ["Paris is the capital of France.", "Lyon is the third city."]
    each = checker.support_each("Capital of France?", "Paris", evidence)
    assert each.levels == checker.support("Capital of France?", "Paris", evidence)
    assert each.each == ["full", "none"]
    judge = HeuristicUsefulness()
    assert judge.usefulness("Capital?", "Paris.") == 5.0
    assert judge.usefulness("Capital?", "I don't know.") == 1.5
    assert judge.usefulness("Capital?", "") == 1.0


def test_heuristic_judges_satisfy_the_protocols():
    assert isinstance(HeuristicClassifier(), ComplexityClassifier)
    assert isinstance(HeuristicEvaluator(), RetrievalEvaluator)
    assert isinstance(HeuristicSupportChecker(), EvidenceSupportChecker)
    assert isinstance(HeuristicUsefulness(), UsefulnessJudge)


def lp(token, logprob, top):
    return {
        "token": token,
        "logprob": logprob,
        "top_logprobs": [{"token": t, "logprob": math.log(p)} for t, p in top],
    }


def test_llm_evaluator_reads_probabilities_from_logprobs():
    def reply(request):
        assert request["response_format"]["type"] == "json_schema"
        assert request["logprobs"] is True
        tokens = [
            lp('{"', -0.1, []),
            lp("relevant", -0.1, []),
            lp('":"', -0.1, []),
            lp("yes", math.log(0.8), [("yes", 0.8), ("no", 0.2)]),
        ]
        return '{"relevant": "yes"}', tokens

    model = llamacpp_with(reply)
    assert LlmEvaluator(model).score("q", ["passage"]) == [pytest.approx(0.6)]


def test_llm_judges_without_logprobs_use_the_choice():
    answers = {
        "steps": '{"steps": "several"}',
        "support": '{"support": "partial"}',
        "usefulness": '{"usefulness": "4"}',
        "relevant": '{"relevant": "no"}',
    }

    def reply(request):
        key = next(iter(request["response_format"]["json_schema"]["schema"]["properties"]))
        return answers[key], None

    model = llamacpp_with(reply)
    assert LlmClassifier(model).classify(["q"])[0].route == "C"
    assert LlmSupportChecker(model).support("q", "a", ["e"]) == {
        "full": 0.0,
        "partial": 1.0,
        "none": 0.0,
    }
    assert LlmUsefulness(model).usefulness("q", "a") == 4.0
    assert LlmEvaluator(model).score("q", ["p"]) == [-1.0]


def test_llm_judge_junk_raises_for_the_graph_to_retry():
    model = llamacpp_with(lambda request: ('{"relevant": "maybe"}', None))
    with pytest.raises(ValueError, match="no valid"):
        LlmEvaluator(model).score("q", ["p"])


def test_factory_selects_judges_by_name():
    assert isinstance(make_classifier(Context(classifier="heuristic")), HeuristicClassifier)
    assert isinstance(Deps().support_for(Context()), HeuristicSupportChecker)


def test_trained_judge_missing_is_a_clear_error(monkeypatch):
    import models.registry as registry
    from graphs import deps

    def not_installed():
        raise ImportError("No module named 'models.evaluator'")

    monkeypatch.setitem(registry.TRAINED_JUDGES, "evaluator", not_installed)
    deps._judge.cache_clear()
    with pytest.raises(JudgeUnavailableError, match="trained evaluator is not available"):
        make_evaluator(Context(evaluator="trained"))
    deps._judge.cache_clear()
