"""A turn stopped before its first step was stored keeps its question (`close_turn`)."""

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from app.server.demo_graph import build_demo_graph
from app.server.turns import close_turn
from graphs.validation import InvalidQuestionError
from nodes.condense_question import STOPPED_TURN

STOPPED = "At what degrees does ice melt?"
NEXT = "What is the capital of France?"
CONFIG = {"configurable": {"thread_id": "t"}}


def _texts(graph) -> list[tuple[str, str]]:
    return [(type(m).__name__, m.text) for m in graph.get_state(CONFIG).values["messages"]]


@pytest.fixture
def graph():
    return build_demo_graph(checkpointer=InMemorySaver(), token_delay=0.0)


def test_a_run_stopped_before_its_first_step_keeps_its_question(graph) -> None:
    graph.invoke({"question": "Who wrote Hamlet?"}, CONFIG)
    # what a kill -9 leaves when only the run's input was checkpointed
    graph.invoke({"question": STOPPED}, CONFIG, interrupt_before=["condense_question"])
    assert _texts(graph)[-1][0] == "AIMessage"  # the stopped question is in no message yet

    assert close_turn(graph, "t") is True

    assert _texts(graph)[-2:] == [("HumanMessage", STOPPED), ("AIMessage", STOPPED_TURN)]
    assert graph.get_state(CONFIG).next == ()
    result = graph.invoke({"question": NEXT}, CONFIG)
    assert result["question"] == NEXT
    assert "Paris" in result["answer"]
    assert [text for _, text in _texts(graph)][2:5] == [STOPPED, STOPPED_TURN, NEXT]


def test_a_whole_turn_is_left_alone(graph) -> None:
    graph.invoke({"question": NEXT}, CONFIG)
    before = _texts(graph)

    assert close_turn(graph, "t") is False
    assert _texts(graph) == before


def test_a_question_the_graph_refused_is_not_stored_as_a_turn(graph) -> None:
    with pytest.raises(InvalidQuestionError, match="control characters"):
        graph.invoke({"question": "What is \x07 this?"}, CONFIG)

    assert close_turn(graph, "t") is False
    assert graph.get_state(CONFIG).values.get("messages", []) == []


def test_an_open_turn_is_closed_once(graph) -> None:
    graph.update_state(CONFIG, {"messages": [HumanMessage(STOPPED)]})

    assert close_turn(graph, "t") is True
    assert close_turn(graph, "t") is False
    last = graph.get_state(CONFIG).values["messages"][-1]
    assert isinstance(last, AIMessage) and last.response_metadata["stopped"] is True
