import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graphs.context import Context
from graphs.graph import recorded
from graphs.validation import InvalidQuestionError
from nodes.classify_complexity import classify_complexity
from nodes.condense_question import condense_question as condense_node
from nodes.condense_question import keeps_intent, template_question
from nodes.rewrite_query import (
    parse_keywords,
    rewrite_for_retrieval,
    rewrite_query,
    within_question,
)
from tests.fakes import FakeClassifier, JunkJudge, make_deps, make_runtime, rule_model

condense_question = recorded(condense_node)
"""The node as the graph runs it: what it emits is recorded in its update."""


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
    assert out["search_query"] == out["standalone_question"]
    assert out["messages"] == []  # the question is already the last message
    assert "Who was Ada Lovelace?" in rewriter.calls[0][1]
    assert out["events"].value[-1]["condensed"] == "model"


CURIE = [
    HumanMessage("Who was Marie Curie?"),
    AIMessage("Marie Curie was a physicist born in Warsaw who won two Nobel prizes."),
]


@pytest.mark.parametrize(
    ("rewrite", "kept"),
    [
        ("Where was Marie Curie born?", True),
        ("where was marie curie born", True),  # a question word is enough without "?"
        ("Marie Curie was a physicist born in Warsaw who won two Nobel prizes.", False),
        ("Was Marie Curie a physicist born in Warsaw who won two Nobel prizes?", False),
        ("Who was Marie Curie?", False),  # lost the new turn's intent ("born")
        ("", False),
        ("Where was Marie Curie born? " + "x" * 400, False),
    ],
)
def test_keeps_intent(rewrite, kept):
    answer = CURIE[1].text
    assert keeps_intent(rewrite, turn="Where was she born?", previous_answer=answer) is kept


TEMPLATE = "Where was she born? (context: Who was Marie Curie?)"
RESOLVED = "Where was Marie Curie born?"


def test_template_question_keeps_the_turn_with_the_previous_question_as_context():
    assert template_question("Where was she born?", "Who was Marie Curie?") == TEMPLATE
    assert template_question("Where?", "  ") == "Where?"


def test_template_question_carries_a_short_answer_and_asks_a_fragment():
    flat = template_question("And the highest?", "When? (context: Who won? — Ada)", answer="61")
    assert flat == "What about the highest? (context: When? Who won? — Ada — 61)"
    long = CURIE[1].text  # a sentence, not a name: left out
    assert template_question("Where?", "Who was Marie Curie?", answer=long) == (
        "Where? (context: Who was Marie Curie?)"
    )


def condense_follow_up(rewriter, history, *, previous=None, context=None):
    """Condense the last turn of `history`; `previous` is the last turn's standalone question."""
    state = {"messages": history} | ({"standalone_question": previous} if previous else {})
    events = []
    out = condense_question(state, make_runtime(context, events), make_deps(rewriter=rewriter))
    return out, events


def test_condense_resolves_a_pronoun_the_rewrite_copied_the_answer_over():
    rewriter = rule_model(default=CURIE[1].text)  # a small model's usual failure
    history = [*CURIE, HumanMessage("Where was she born?")]
    out, events = condense_follow_up(rewriter, history, context=Context(judge_attempts=2))
    assert out["standalone_question"] == RESOLVED
    assert len(rewriter.calls) == 2
    assert [e["type"] for e in events] == ["fallback", "question"]
    used = "the follow-up with 'she' read as Marie Curie, from the previous question"
    assert events[0]["used"] == used
    assert events[-1]["condensed"] == "resolved" and events[-1]["question"] == "Where was she born?"
    assert out["degraded"].value == []  # the model answered, badly: the run is not degraded


POLANSKI = [
    HumanMessage("When was Emmanuelle Seigner born?"),
    AIMessage("22 June 1966"),
    HumanMessage("Who is she married to?"),
    AIMessage("Roman Polanski"),
    HumanMessage("And what nationality is he?"),
]
POLANSKI_BEFORE = "Who is Emmanuelle Seigner married to?"


@pytest.mark.parametrize(
    ("rewrite", "problem"),
    [
        ("What nationality is he?", "the rewrite left 'he' unresolved"),
        (
            "What nationality does Emmanuelle Seigner have?",
            "the rewrite does not name Roman Polanski",
        ),
    ],
)
def test_condense_replaces_a_rewrite_that_misreads_the_pronoun(rewrite, problem):
    rewriter = rule_model(default=rewrite)
    out, events = condense_follow_up(rewriter, POLANSKI, previous=POLANSKI_BEFORE)
    assert keeps_intent(rewrite, turn="And what nationality is he?")  # the old check let it by
    assert out["standalone_question"] == "What nationality is Roman Polanski?"
    assert [e["type"] for e in events] == ["fallback", "question"]
    assert events[0]["problem"] == problem and events[0]["degraded"] is None
    assert events[0]["used"].endswith("read as Roman Polanski, from the previous answer")
    assert events[-1]["condensed"] == "resolved"
    assert out["events"].value == events


DUCTUS = [HumanMessage("What is the ductus arteriosus?"), AIMessage("A blood vessel.")]


@pytest.mark.parametrize(
    ("history", "turn", "problem", "standalone"),
    [
        (
            DUCTUS,  # no name to resolve "it" with: the rules stand aside
            "What does it become?",
            "the rewrite left 'it' unresolved",
            "What does it become? (context: What is the ductus arteriosus? — A blood vessel)",
        ),
        (
            CURIE,
            "And in Poland?",
            "the rewrite is not a full question",
            "What about in Poland? (context: Who was Marie Curie?)",
        ),
    ],
)
def test_condense_falls_back_to_the_template_when_the_rewrite_is_the_turn(
    history, turn, problem, standalone
):
    rewriter = rule_model(default=turn)  # the model hands the turn back
    out, events = condense_follow_up(rewriter, [*history, HumanMessage(turn)])
    assert out["standalone_question"] == standalone
    assert [e["type"] for e in events] == ["fallback", "question"]
    assert events[0]["problem"] == problem
    assert events[0]["used"] == "the previous question with the new turn"
    assert events[-1]["condensed"] == "template"


def test_condense_keeps_a_rewrite_that_names_the_referent():
    rewriter = rule_model(default="What is the nationality of Roman Polanski?")
    out, events = condense_follow_up(rewriter, POLANSKI, previous=POLANSKI_BEFORE)
    assert out["standalone_question"] == "What is the nationality of Roman Polanski?"
    assert [e["type"] for e in events] == ["question"] and events[0]["condensed"] == "model"


def test_condense_carries_the_previous_turns_referent_when_the_rewriter_fails():
    history = [
        HumanMessage("Who was Marie Curie?"),
        AIMessage("A physicist."),
        HumanMessage("Where was she born?"),
        AIMessage("In Warsaw."),
        HumanMessage("When did she die?"),
    ]
    out, events = condense_follow_up(rule_model(default=""), history, previous=RESOLVED)
    assert out["standalone_question"] == "When did Marie Curie die?"
    assert (
        events[0]["used"] == "the follow-up with 'she' read as Marie Curie, from the previous turn"
    )


def test_condense_template_uses_the_previous_turn_as_understood_and_its_answer():
    history = [
        *CURIE,
        HumanMessage("Where was she born?"),
        AIMessage("In Warsaw."),
        HumanMessage("When?"),
    ]
    out, events = condense_follow_up(rule_model(default=""), history, previous=RESOLVED)
    assert out["standalone_question"] == "When? (context: Where was Marie Curie born? — In Warsaw)"
    assert events[-1]["condensed"] == "template"
    assert events[0]["used"] == "the previous question with the new turn"


def test_condense_template_leaves_out_an_abstention():
    abstained = AIMessage("Warsaw", response_metadata={"abstained": True})  # a withheld guess
    history = [HumanMessage("Who was Marie Curie?"), abstained, HumanMessage("When?")]
    out, _ = condense_follow_up(rule_model(default=""), history)
    assert out["standalone_question"] == "When? (context: Who was Marie Curie?)"


def test_follow_up_with_a_good_rewrite_keeps_it():
    rewriter = rule_model(default="Standalone question: Where was Marie Curie born?")
    out, events = condense_follow_up(rewriter, [*CURIE, HumanMessage("Where was she born?")])
    assert out["standalone_question"] == "Where was Marie Curie born?"
    assert [e["type"] for e in events] == ["question"] and events[0]["condensed"] == "model"


def test_follow_up_without_a_rewriter_degrades_to_the_rules():
    from graphs.deps import JudgeUnavailableError

    class Missing:
        def rewriter_for(self, context):
            raise JudgeUnavailableError("no rewriter model installed")

    history = [*CURIE, HumanMessage("Where was she born?")]
    out = condense_question({"messages": history}, make_runtime(), Missing())
    assert out["standalone_question"] == RESOLVED
    assert out["events"].value[-1]["condensed"] == "resolved"
    assert out["degraded"].value == ["no rewriter model installed"]
    elliptical = [*CURIE, HumanMessage("And in Poland?")]
    out = condense_question({"messages": elliptical}, make_runtime(), Missing())
    assert out["standalone_question"] == "What about in Poland? (context: Who was Marie Curie?)"
    assert out["events"].value[-1]["condensed"] == "template"


def test_condense_off_keeps_the_turn_as_asked():
    rewriter = rule_model(default="Where was Marie Curie born?")
    history = [*CURIE, HumanMessage("Where was she born?")]
    events = []
    out = condense_question(
        {"messages": history},
        make_runtime(Context(condense_history=False), events),
        make_deps(rewriter=rewriter),
    )
    assert out["standalone_question"] == "Where was she born?" and rewriter.calls == []
    assert events[0]["condensed"] == "off"


def test_condense_refuses_a_missing_question():
    with pytest.raises(InvalidQuestionError):
        condense_question({"messages": [AIMessage("hi")]}, make_runtime(), make_deps())


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
