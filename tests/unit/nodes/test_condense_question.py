import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graphs.context import Context
from graphs.graph import recorded
from graphs.validation import InvalidQuestionError
from nodes.condense_question import condense_question as condense_node
from nodes.condense_question import exchanges
from tests.fakes import follow_up_reply, make_deps, make_runtime, structured_model

condense_question = recorded(condense_node)
"""The node as the graph runs it: what it emits is recorded in its update."""

KELLO = [
    HumanMessage("Who designed the Halvard Bridge?"),
    AIMessage("Marta Kello designed the Halvard Bridge."),
]

ABOUT_KELLO = [  # no "Who ...?": "she" is the model's to choose, not the salience rule's
    HumanMessage("Tell me about Marta Kello."),
    AIMessage("Marta Kello designed the Halvard Bridge."),
]


def condense(history, *, rewriter=None, previous=None, context=None):
    """Condense the last turn of `history`; `previous` is the last turn's standalone question."""
    state = {"messages": history} | ({"standalone_question": previous} if previous else {})
    events = []
    deps = make_deps(rewriter=rewriter or structured_model())
    return condense_question(state, make_runtime(context, events), deps), events


def test_condense_resets_the_turn_and_adds_the_human_message():
    out = condense_question({"question": " Where? ", "retries": 3}, make_runtime(), make_deps())
    assert out["question"] == "Where?" and out["standalone_question"] == "Where?"
    assert out["retries"] == 0 and out["passages"].value == []
    assert [m.content for m in out["messages"]] == ["Where?"]


def test_a_checked_model_rewrite_is_used_and_the_referent_shown():
    rewriter = structured_model(
        default=follow_up_reply("Where was Marta Kello born?", "Marta Kello")
    )
    turns = [*ABOUT_KELLO, HumanMessage("Where was she born?")]
    out, events = condense(turns, rewriter=rewriter)
    assert out["standalone_question"] == out["search_query"] == "Where was Marta Kello born?"
    assert out["messages"] == []  # the question is already the last message
    assert [e["type"] for e in events] == ["question"]
    assert events[0]["condensed"] == "model" and events[0]["referent"] == "she = Marta Kello"
    assert "Marta Kello designed the Halvard Bridge." in rewriter.calls[0][1]


def test_a_referent_that_is_the_whole_answer_is_refused_and_the_rules_answer():
    sentence = "Marta Kello designed the Halvard Bridge"
    rewriter = structured_model(default=follow_up_reply(f"Where was {sentence} born?", sentence))
    turns = [*ABOUT_KELLO, HumanMessage("Where was she born?")]
    out, events = condense(turns, rewriter=rewriter)
    assert [e["type"] for e in events] == ["fallback", "question"]
    assert events[0]["problem"].startswith("the model picked no listed referent")
    assert out["standalone_question"] == "Where was Marta Kello born?"
    assert events[-1]["condensed"] == "resolved" and events[-1]["referent"] == "she = Marta Kello"
    assert out["degraded"].value == []  # the model answered, badly: the run is not degraded


def test_a_topic_switch_is_kept_without_asking_the_model():
    rewriter = structured_model(default=follow_up_reply("Where was Marta Kello born?", "x"))
    out, events = condense(
        [*KELLO, HumanMessage("Where was Odile Fanshaw born?")], rewriter=rewriter
    )
    assert out["standalone_question"] == "Where was Odile Fanshaw born?"
    assert events[0]["condensed"] == "kept" and rewriter.calls == []


@pytest.mark.parametrize("kind", ["rules", "template"])
def test_context_chooses_the_rewriter(kind):
    rewriter = structured_model(
        default=follow_up_reply("Where was Marta Kello born?", "Marta Kello")
    )
    history = [*KELLO, HumanMessage("Where was she born?")]
    out, events = condense(history, rewriter=rewriter, context=Context(follow_ups=kind))
    assert rewriter.calls == [] and events[0]["condensed"] == {"rules": "resolved"}.get(
        kind, "template"
    )
    expected = {
        "rules": "Where was Marta Kello born?",
        "template": "Where was she born? (context: Who designed the Halvard Bridge?)",
    }
    assert out["standalone_question"] == expected[kind]


def test_without_a_follow_up_model_the_run_degrades_to_the_rules():
    from graphs.deps import Deps, JudgeUnavailableError

    class Missing(Deps):
        def follow_up_model_for(self, context):
            raise JudgeUnavailableError("no rewriter model installed")

    history = [*KELLO, HumanMessage("When did she die?")]
    out = condense_question({"messages": history}, make_runtime(), Missing())
    assert out["standalone_question"] == "When did Marta Kello die?"
    assert out["events"].value[-1]["condensed"] == "resolved"
    assert out["degraded"].value == ["no rewriter model installed"]


def test_the_previous_turn_is_given_as_understood():
    history = [*KELLO, HumanMessage("Where was she born?"), AIMessage("In Dunmere.")]
    found = exchanges(history, "Where was Marta Kello born?")
    assert [(e.question, e.standalone) for e in found] == [
        ("Who designed the Halvard Bridge?", "Who designed the Halvard Bridge?"),
        ("Where was she born?", "Where was Marta Kello born?"),
    ]
    abstained = AIMessage("Warsaw", response_metadata={"abstained": True})
    assert exchanges([HumanMessage("Who?"), abstained], None)[0].answer == ""


def test_condense_off_keeps_the_turn_as_asked():
    rewriter = structured_model(default=follow_up_reply("Where was Marta Kello born?"))
    history = [*KELLO, HumanMessage("Where was she born?")]
    out, events = condense(history, rewriter=rewriter, context=Context(condense_history=False))
    assert out["standalone_question"] == "Where was she born?" and rewriter.calls == []
    assert events[0]["condensed"] == "off"


def test_condense_refuses_a_missing_question():
    with pytest.raises(InvalidQuestionError):
        condense_question({"messages": [AIMessage("hi")]}, make_runtime(), make_deps())


def test_after_a_who_question_she_is_read_by_rule_and_shown():
    rewriter = structured_model(default=follow_up_reply("Where was x born?", "x"))
    out, events = condense([*KELLO, HumanMessage("Where was she born?")], rewriter=rewriter)
    assert out["standalone_question"] == "Where was Marta Kello born?" and rewriter.calls == []
    assert events[0]["referent"] == "she = Marta Kello"
