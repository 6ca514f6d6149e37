"""A run answers the question it was given, even after a run on its thread was stopped."""

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from app.server.demo_graph import build_demo_graph
from nodes.condense_question import STOPPED_TURN

STOPPED = "At what degrees does ice melt?"
NEXT = "What is the capital of France?"


def _stop_after_condense(graph, config, run_input) -> None:
    """Start a run and abandon it once `condense_question` has been checkpointed."""
    chunks = graph.stream(run_input, config, stream_mode="updates")
    for chunk in chunks:
        if "condense_question" in chunk:
            break
    chunks.close()


@pytest.mark.parametrize(
    "stopped_input",
    [{"question": STOPPED}, {"messages": [HumanMessage(STOPPED)]}],
    ids=["question", "messages"],
)
def test_a_question_after_a_stopped_turn_is_the_one_answered(stopped_input):
    graph = build_demo_graph(checkpointer=InMemorySaver(), token_delay=0.0)
    config = {"configurable": {"thread_id": "t"}}
    _stop_after_condense(graph, config, stopped_input)
    assert graph.get_state(config).values["messages"][-1].text == STOPPED  # the half-turn

    result = graph.invoke({"question": NEXT}, config)

    assert result["question"] == NEXT
    assert "Paris" in result["answer"]
    kinds = [(type(m).__name__, m.text) for m in result["messages"]]
    assert kinds == [
        ("HumanMessage", STOPPED),
        ("AIMessage", STOPPED_TURN),
        ("HumanMessage", NEXT),
        ("AIMessage", result["messages"][-1].text),
    ]


def test_chat_messages_still_carry_the_question_after_a_stopped_turn():
    graph = build_demo_graph(checkpointer=InMemorySaver(), token_delay=0.0)
    config = {"configurable": {"thread_id": "t"}}
    _stop_after_condense(graph, config, {"question": STOPPED})

    result = graph.invoke({"messages": [HumanMessage(NEXT)]}, config)

    assert result["question"] == NEXT
    assert isinstance(result["messages"][-1], AIMessage)


def test_page_input_with_both_fields_is_asked_once_per_turn():
    graph = build_demo_graph(checkpointer=InMemorySaver(), token_delay=0.0)
    config = {"configurable": {"thread_id": "t"}}
    for question in (STOPPED, NEXT):
        graph.invoke({"question": question, "messages": [HumanMessage(question)]}, config)
    texts = [m.text for m in graph.get_state(config).values["messages"]]
    assert texts[0::2] == [STOPPED, NEXT]
    assert len(texts) == 4
