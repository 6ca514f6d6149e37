import pytest

from graphs.context import Context
from graphs.graph import recorded
from nodes.classify_complexity import classify_complexity
from nodes.rewrite_query import (
    parse_keywords,
    rewrite_for_retrieval,
    rewrite_query,
    within_question,
)
from tests.fakes import FakeClassifier, JunkJudge, make_deps, make_runtime, rule_model


@pytest.mark.parametrize(
    ("reply", "keywords"),
    [
        ("Henry Feilden, occupation", "Henry Feilden, occupation"),
        ("Keywords: a, b, c, d, e", "a, b, c"),
        ("\n x , , y.\nsecond line", "x, y"),
        ("   ", None),
        ("The song How You Remind Me came out in 2019", None),
    ],
)
def test_parse_keywords_keeps_at_most_three(reply, keywords):
    assert parse_keywords(reply) == keywords


def test_rewrite_for_web_and_for_retry():
    deps = make_deps(rewriter=rule_model(default="Henry Feilden, occupation, army, extra"))
    state = {"standalone_question": "What is Henry Feilden's occupation in the army?"}
    events = []
    out = rewrite_query(state, make_runtime(events=events), deps)
    assert out["search_query"] == "Henry Feilden, occupation, army"
    retry = rewrite_for_retrieval(state, make_runtime(events=events), deps)
    assert retry["search_query"] == out["search_query"]
    assert [(e["purpose"], e["note"]) for e in events] == [("web", None), ("retrieve", None)]
    assert "retry" not in retry  # reflect's decision is not the rewriter's to clear


def test_rewrite_falls_back_to_the_question():
    events = []
    state = {"standalone_question": "Who?"}
    out = recorded(rewrite_query)(
        state, make_runtime(events=events), make_deps(rewriter=rule_model(default=""))
    )
    assert out["search_query"] == "Who?"
    assert [e["type"] for e in events] == ["fallback", "rewrite"]
    assert events[0]["problem"] == "invalid output: None" and "degraded" not in out


@pytest.mark.parametrize(
    ("keywords", "accepted"),
    [
        ("Glassmere Lighthouse, completed", True),
        ("glassmere lighthouses, COMPLETED", True),  # case and plural do not matter
        ("Glassmere Lighthouse, completed 1924", False),  # an invented year
        ("Glassmere Lighthouse, Southampton", False),  # an invented place
        ("", False),
        (None, False),
    ],
)
def test_within_question(keywords, accepted):
    question = "When was the Glassmere Lighthouse completed?"
    assert within_question(keywords, question) is accepted


@pytest.mark.parametrize(
    ("keywords", "accepted"),
    [
        ("Glassmere Lighthouse, opened", True),  # a short verb with an ending
        ("Glassmere Lighthouse, opening", True),
        ("Glassmere Lighthouse, opera", False),  # another word that starts alike
        ("Glassmere Lighthouse, ope", False),
    ],
)
def test_within_question_takes_a_short_word_with_an_ending(keywords, accepted):
    question = "What year did the Glassmere Lighthouse open?"
    assert within_question(keywords, question) is accepted


def test_within_question_ignores_accents():
    question = "Where was José Echegaray born?"
    assert within_question("Jose Echegaray, born", question)
    assert not within_question("José Echegaray, Madrid", question)


def test_invented_facts_are_rejected_and_the_user_is_told():
    events = []
    rewriter = rule_model(default="Glassmere Lighthouse, completed in 1924")
    state = {"standalone_question": "When was the Glassmere Lighthouse completed?"}
    out = recorded(rewrite_query)(
        state, make_runtime(Context(judge_attempts=2), events), make_deps(rewriter=rewriter)
    )
    assert len(rewriter.calls) == 2
    assert out["search_query"] == "Glassmere Lighthouse, completed"
    assert "1924" not in out["search_query"]
    assert events[0]["type"] == "fallback" and "1924" in events[0]["problem"]
    assert events[-1]["type"] == "rewrite"
    assert events[-1]["note"] == "kept the question's own keywords"
    assert out["events"] == events


def test_forced_route_skips_the_classifier():
    judge = JunkJudge()
    out = classify_complexity(
        {"standalone_question": "q"}, make_runtime(Context(route="C")), make_deps(classifier=judge)
    )
    assert out["route"] == "C" and judge.calls == 0


def test_classifier_route_and_probabilities_are_stored():
    events = []
    out = classify_complexity(
        {"standalone_question": "q"},
        make_runtime(events=events),
        make_deps(classifier=FakeClassifier("A")),
    )
    assert out["route"] == "A" and out["route_probabilities"] == {"A": 0.9}
    assert events[0]["type"] == "route"


def test_classifier_junk_falls_back_to_b():
    events = []
    out = classify_complexity(
        {"standalone_question": "q"}, make_runtime(events=events), make_deps(classifier=JunkJudge())
    )
    assert out["route"] == "B"
    assert [e["type"] for e in events] == ["fallback", "route"]


def test_copied_example_keywords_are_rejected_for_names_from_the_question():
    events = []
    rewriter = rule_model(default="Vienna, river")  # the few-shot example, not the question
    state = {"standalone_question": "Who plays David Seville in Alvin and the Chipmunks?"}
    out = recorded(rewrite_query)(
        state, make_runtime(Context(judge_attempts=2), events), make_deps(rewriter=rewriter)
    )
    assert len(rewriter.calls) == 2
    assert out["search_query"] == "David Seville, Alvin, Chipmunks"
    assert events[0]["type"] == "fallback" and events[0]["used"] == "the question's own keywords"
    assert events[-1]["query"] == out["search_query"]


def test_ambiguous_searches_with_the_question_as_asked_without_the_rewriter():
    rewriter = rule_model(default="Henry Feilden, occupation")
    question = "What is Henry Feilden's occupation in the army?"
    events = []
    context = Context(ambiguous_query="question")
    ambiguous = {"standalone_question": question, "crag_action": "Ambiguous"}
    out = rewrite_query(ambiguous, make_runtime(context, events), make_deps(rewriter=rewriter))
    assert out["search_query"] == question and rewriter.calls == []
    assert events[-1]["note"] == "as asked: Ambiguous keeps the local strips"
    # Incorrect has only the web: its query is still the rewriter's keywords, as is a retry's
    incorrect = {**ambiguous, "crag_action": "Incorrect"}
    assert rewrite_query(incorrect, make_runtime(context), make_deps(rewriter=rewriter)) == {
        "search_query": "Henry Feilden, occupation"
    }
    retry = rewrite_for_retrieval(ambiguous, make_runtime(context), make_deps(rewriter=rewriter))
    assert retry["search_query"] == "Henry Feilden, occupation"
