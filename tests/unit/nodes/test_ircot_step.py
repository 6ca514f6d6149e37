import pytest

from graphs.context import Context
from nodes.ircot_step import first_sentence, ircot_step, read_answer
from prompts.ircot import IRCOT_DEMOS
from tests.fakes import make_deps, make_runtime, passage, rule_model


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
    assert first_sentence("\n Ann is Bob's aunt. Then Cy is Dan's.\nMore") == "Ann is Bob's aunt."
    assert first_sentence("no stop at all") == "no stop at all"


def strip(text: str, *, kept: bool = True) -> dict:
    """Return a kept (or dropped) knowledge strip holding `text`."""
    return {
        "hash": text,
        "passage_hash": text,
        "order": 0,
        "text": text,
        "title": "T",
        "source": "s.md",
        "position": 0,
        "url": None,
        "origin": "local",
        "score": 0.5,
        "kept": kept,
    }


ROE = [strip("The novel Grey Water was written by Jane Roe in 1950.")]


def test_step_appends_sentence_and_sets_next_query():
    deps = make_deps(generator=rule_model(default="Jane Roe wrote it. Extra."))
    state = {"standalone_question": "q", "reasoning": ["First."], "ircot_steps": 1, "strips": ROE}
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
    assert out["ircot_done"] == "cap"
    assert out["ircot_done_reason"].startswith("IRCoT reached its cap of 3 steps")
    assert [e["type"] for e in events] == ["ircot_step", "cap_reached"]
    assert events[1]["reason"] == out["ircot_done_reason"] and events[1]["limit"] == 3
    below = ircot_step({**state, "ircot_steps": 1}, make_runtime(Context(ircot_max_steps=3)), deps)
    assert below["ircot_done"] is None


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
    assert out["ircot_done"] == "no_fact"
    assert out["ircot_done_reason"] == "no new fact: answering from what was found"


def test_the_prompt_shows_worked_demonstrations_first():
    generator = rule_model(default="Jane Roe wrote it.")
    state = {"standalone_question": "Who wrote it?", "reasoning": ["It is a novel."]}
    ircot_step(state, make_runtime(), make_deps(generator=generator))
    prompt = generator.calls[0][1]
    real = prompt.rindex("Question: Who wrote it?")
    for demo, reply in IRCOT_DEMOS:
        assert prompt.index(demo) < prompt.index(reply) < real
    assert prompt.rindex("It is a novel.") > real  # the chain so far follows the question


def test_a_repeated_sentence_is_rejected():
    generator = rule_model(default="Jane Roe wrote the novel.")
    state = {
        "standalone_question": "Who wrote the novel?",
        "reasoning": ["Jane  Roe wrote the novel"],  # the same, but for spacing and the stop
        "ircot_steps": 1,
    }
    events = []
    out = ircot_step(
        state, make_runtime(Context(judge_attempts=2), events), make_deps(generator=generator)
    )
    assert len(generator.calls) == 2  # retried, then given up
    assert "reasoning" not in out and "search_query" not in out
    assert [e["type"] for e in events] == ["fallback", "ircot_step"]
    assert events[1]["sentence"] == "" and out["ircot_done"] == "no_fact"


def _after_a_step(sentence: str, *, found_new: bool) -> dict:
    """Run the second step, after a retrieval that found a new passage or nothing new."""
    state = {
        "standalone_question": "Who wrote the novel?",
        "reasoning": ["Jane Roe wrote the novel."],
        "ircot_steps": 1,
        "retrievals": 2,
        "passages": [passage("The novel.", score=0.1), passage("Jane Roe.", score=0.2)],
        "strips": [*ROE, strip("Jane Roe was born in Leeds.")],
    }
    if found_new:
        state["passages"].append({**passage("Jane Roe lived in Leeds."), "step": 1})
    return ircot_step(state, make_runtime(), make_deps(generator=rule_model(default=sentence)))


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("Jane Roe was born in Leeds.", ["Jane Roe was born in Leeds in 1921."]),
        ("Jane Roe was born in Leeds.", ["Jane Roe wrote novels.", "Leeds is a city."]),
        ("Ann Ray lived in Leeds.", ["Ann Ray, a writer, lived in Leeds."]),
        ("So the answer is: 1950.", ["Grey Water appeared in 1950."]),
    ],
)
def test_a_sentence_is_kept_only_when_one_strip_holds_its_claim(sentence, kept):
    from nodes.ircot_step import supported

    assert supported(sentence, kept, "Who wrote Grey Water?") is (len(kept) == 1)


def test_an_unsupported_sentence_is_dropped_and_searched_for_not_said():
    state = {
        "standalone_question": "Where was the author of Grey Water born?",
        "reasoning": ["Jane Roe wrote Grey Water."],
        "ircot_steps": 1,
        "strips": [*ROE, strip("Jane Roe was born in Kendal.", kept=False)],
        "search_query": "Jane Roe wrote Grey Water.",
    }
    events = []
    invented = rule_model(default="Jane Roe was born in the Lake District.")
    out = ircot_step(state, make_runtime(Context(), events), make_deps(generator=invented))
    assert out["search_query"] == state["standalone_question"] and "reasoning" not in out
    assert out["ircot_done"] is None and out["ircot_answer"] is None
    assert events[-1]["dropped"] is True
    assert events[-1]["sentence"] == "Jane Roe was born in the Lake District."
    again = {**state, "search_query": state["standalone_question"]}  # the question: searched
    out = ircot_step(again, make_runtime(), make_deps(generator=invented))
    assert (
        out["search_query"] == "Jane Roe was born in the Lake District." and "reasoning" not in out
    )
    assert out["ircot_done"] is None
    capped = {**again, "ircot_steps": Context().ircot_max_steps - 1}
    out = ircot_step(capped, make_runtime(), make_deps(generator=invented))
    assert out["ircot_done"] == "cap" and "reasoning" not in out
    guessed = rule_model(default="So the answer is: the Lake District.")
    out = ircot_step(state, make_runtime(), make_deps(generator=guessed))
    assert out["ircot_answer"] is None  # an answer no strip holds is no answer
    kept = {**state, "strips": [*ROE, strip("Jane Roe was born in Kendal.")]}
    out = ircot_step(
        kept, make_runtime(), make_deps(generator=rule_model(default="So the answer is: Kendal."))
    )
    assert out["ircot_answer"] == "Kendal"


def test_a_step_that_finds_and_says_nothing_new_ends_the_loop():
    out = _after_a_step("The novel was by Jane Roe.", found_new=False)
    assert out["ircot_done"] == "no_progress"
    assert (
        out["ircot_done_reason"] == "nothing new retrieved or said: answering from what was found"
    )
    assert out["reasoning"][-1] == "The novel was by Jane Roe."
    assert _after_a_step("The novel was by Jane Roe.", found_new=True)["ircot_done"] is None
    assert _after_a_step("Jane Roe was born in Leeds.", found_new=False)["ircot_done"] is None


def test_an_answer_ends_the_loop():
    out = _after_a_step("So the answer is: Jane Roe.", found_new=True)
    assert out["ircot_answer"] == "Jane Roe"
    assert out["ircot_done"] == "answer"
    assert out["ircot_done_reason"] == "the reasoning reached an answer"


@pytest.mark.parametrize(
    "reply",
    [
        '<passage id="3" title="Glassmere">The lighthouse was designed by Orla Fenwick.</passage>',
        '<passage id="3" title="Glassmere">\nThe lighthouse was designed by Orla Fenwick.',
        "Reasoning: <b>The lighthouse</b> was designed by Orla Fenwick. More.",
    ],
)
def test_markup_never_reaches_the_search_query(reply):
    fenwick = [strip("Orla Fenwick designed the Glassmere lighthouse.")]
    out = ircot_step(
        {"standalone_question": "Who designed the lighthouse?", "strips": fenwick},
        make_runtime(),
        make_deps(generator=rule_model(default=reply)),
    )
    assert out["search_query"] == "The lighthouse was designed by Orla Fenwick."
    assert out["reasoning"] == [out["search_query"]]


def test_a_reply_of_markup_alone_gives_no_sentence():
    assert first_sentence('<passage id="3" title="x">\n</passage>') == ""
