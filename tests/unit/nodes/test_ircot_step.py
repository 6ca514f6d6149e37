import pytest

from graphs.context import Context
from nodes.ircot_step import first_sentence, ircot_step, read_answer
from tests.fakes import make_deps, make_runtime, rule_model


@pytest.mark.parametrize(
    ("sentence", "answer"),
    [
        ("So the answer is: Leeds.", "Leeds"),
        ("Thus the answer is 1947", "1947"),
        ("The author was born in Leeds.", None),
        ("So the answer is:", None),
    ],
)
def test_read_answer(sentence, answer):
    assert read_answer(sentence) == answer


def test_first_sentence_keeps_one_sentence():
    assert first_sentence("\n A is B. Then C is D.\nMore") == "A is B."
    assert first_sentence("no stop at all") == "no stop at all"


def test_step_appends_sentence_and_sets_next_query():
    deps = make_deps(generator=rule_model(default="Jane Roe wrote it. Extra."))
    state = {"standalone_question": "q", "reasoning": ["First."], "ircot_steps": 1, "strips": []}
    events = []
    out = ircot_step(state, make_runtime(Context(), events), deps)
    assert out["reasoning"] == ["First.", "Jane Roe wrote it."]
    assert out["search_query"] == "Jane Roe wrote it."
    assert out["ircot_steps"] == 2 and out["ircot_answer"] is None
    assert [e["type"] for e in events] == ["ircot_step"]


def test_step_at_the_cap_records_why():
    deps = make_deps(generator=rule_model(default="Still thinking."))
    state = {"standalone_question": "q", "reasoning": [], "ircot_steps": 2, "strips": []}
    events = []
    out = ircot_step(state, make_runtime(Context(ircot_max_steps=3), events), deps)
    assert "cap of 3 steps" in out["stop_reason"]
    assert [e["type"] for e in events] == ["ircot_step", "cap_reached"]


def test_empty_replies_are_retried_then_recorded():
    generator = rule_model(default="   ")
    events = []
    out = ircot_step(
        {"standalone_question": "q", "strips": []},
        make_runtime(Context(judge_attempts=2), events),
        make_deps(generator=generator),
    )
    assert len(generator.calls) == 2
    assert events[0]["type"] == "fallback" and "reasoning" not in out
