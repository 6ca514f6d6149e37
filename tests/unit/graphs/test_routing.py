import pytest
from langgraph.graph import END

from graphs import routing
from nodes.grade_documents import crag_action


@pytest.mark.parametrize(
    ("route", "expected"), [("A", "generate"), ("B", "retrieve"), ("C", "ircot")]
)
def test_route_question(route, expected):
    assert routing.route_question({"route": route}) == expected


def test_route_question_rejects_unknown():
    with pytest.raises(ValueError, match="unknown route"):
        routing.route_question({"route": "D"})


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"crag_action": "Correct"}, "refine_strips"),
        ({"crag_action": "Ambiguous"}, "refine_strips"),
        ({"crag_action": "Incorrect"}, "rewrite_query"),
        ({"crag_action": "Incorrect", "web_searched": True}, "refine_strips"),
    ],
)
def test_route_crag(state, expected):
    assert routing.route_crag(state) == expected


def test_route_crag_rejects_unknown():
    with pytest.raises(ValueError, match="unknown CRAG action"):
        routing.route_crag({})


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"crag_action": "Ambiguous"}, "rewrite_query"),
        ({"crag_action": "Ambiguous", "web_searched": True}, "generate"),
        ({"crag_action": "Correct"}, "generate"),
        ({"crag_action": "Incorrect", "web_searched": True}, "generate"),
    ],
)
def test_route_after_refine(state, expected):
    assert routing.route_after_refine(state) == expected


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({"ircot_done": "the reasoning reached an answer"}, END),
        ({"ircot_done": "nothing new retrieved or said: answering from what was found"}, END),
        ({"ircot_done": None, "ircot_answer": "Paris"}, "retrieve"),  # only `ircot_done` ends it
        ({}, "retrieve"),
    ],
)
def test_route_ircot(state, expected):
    assert routing.route_ircot(state) == expected


@pytest.mark.parametrize(
    ("retry", "expected"),
    [("regenerate", "generate"), ("rewrite", "rewrite_for_retrieval"), (None, "finalize")],
)
def test_route_after_reflect(retry, expected):
    assert routing.route_after_reflect({"retry": retry}) == expected


def test_route_after_reflect_rejects_unknown():
    with pytest.raises(ValueError, match="unknown retry"):
        routing.route_after_reflect({"retry": "pray"})


UPPER, LOWER = 0.5, -0.5


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([0.5], "Correct"),  # exactly at the upper threshold counts as Correct
        ([0.4999, -0.9], "Ambiguous"),
        ([-0.5], "Ambiguous"),  # exactly at the lower threshold is not below it
        ([-0.5001, -0.9], "Incorrect"),
        ([0.9, -0.9], "Correct"),  # any passage above upper suffices
        ([], "Incorrect"),  # nothing retrieved
    ],
)
def test_crag_action_thresholds(scores, expected):
    assert crag_action(scores, upper=UPPER, lower=LOWER) == expected
