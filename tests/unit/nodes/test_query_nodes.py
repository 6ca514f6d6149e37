import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graphs.context import Context
from graphs.validation import InvalidQuestionError
from nodes.classify_complexity import classify_complexity
from nodes.condense_question import condense_question
from nodes.rewrite_query import parse_keywords, rewrite_query
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
    state = {"standalone_question": "What is Henry Feilden's occupation?"}
    out = rewrite_query(state, make_runtime(), deps)
    assert out["search_query"] == "Henry Feilden, occupation, army"
    assert out["rewrite_purpose"] == "web"
    retry = rewrite_query({**state, "retry_action": "rewrite"}, make_runtime(), deps)
    assert retry["rewrite_purpose"] == "retrieve" and retry["retry_action"] is None


def test_rewrite_falls_back_to_the_question():
    events = []
    state = {"standalone_question": "Who?"}
    out = rewrite_query(
        state, make_runtime(events=events), make_deps(rewriter=rule_model(default=""))
    )
    assert out["search_query"] == "Who?"
    assert [e["type"] for e in events] == ["fallback", "rewrite"]


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


def test_condense_resets_the_turn_and_adds_the_human_message():
    out = condense_question({"question": " Where? ", "retries": 3}, make_runtime(), make_deps())
    assert out["question"] == "Where?" and out["standalone_question"] == "Where?"
    assert out["retries"] == 0 and out["passages"].value == []
    assert [m.content for m in out["messages"]] == ["Where?"]


def test_condense_uses_history_for_follow_ups():
    rewriter = rule_model(default="When was Ada Lovelace born?\nextra")
    history = [
        HumanMessage("Who was Ada Lovelace?"),
        AIMessage("A mathematician."),
        HumanMessage("When was she born?"),
    ]
    out = condense_question({"messages": history}, make_runtime(), make_deps(rewriter=rewriter))
    assert out["standalone_question"] == "When was Ada Lovelace born?"
    assert out["messages"] == []  # the question is already the last message
    assert "Who was Ada Lovelace?" in rewriter.calls[0][1]


def test_condense_refuses_a_missing_question():
    with pytest.raises(InvalidQuestionError):
        condense_question({"messages": [AIMessage("hi")]}, make_runtime(), make_deps())


def test_copied_example_keywords_are_rejected_for_names_from_the_question():
    events = []
    rewriter = rule_model(default="Vienna, river")  # the few-shot example, not the question
    state = {"standalone_question": "Who plays David Seville in Alvin and the Chipmunks?"}
    out = rewrite_query(
        state, make_runtime(Context(judge_attempts=2), events), make_deps(rewriter=rewriter)
    )
    assert len(rewriter.calls) == 2
    assert out["search_query"] == "David Seville, Alvin, Chipmunks"
    assert events[0]["type"] == "fallback" and events[0]["used"] == out["search_query"]
