"""The default reader, in a chat of its own, judges its answer against the passages."""

import pytest

from graphs.context import Context
from models import load_chat_model
from models.defaults import DEFAULT_MODEL
from nodes.generate import generate, judge_answer
from tests.fakes import make_deps, make_runtime

pytestmark = pytest.mark.integration

QUESTION = "In what year was the Eiffel Tower completed?"
STRIP = {
    "hash": "s1",
    "passage_hash": "p1",
    "kept": True,
    "score": 0.9,
    "title": "Eiffel Tower",
    "text": "The Eiffel Tower was completed in March 1889 for the World's Fair in Paris. "
    "Its designer, Gustave Eiffel, was born in Dijon in 1832.",
}


def test_the_real_reader_says_yes_to_the_stated_answer_more_than_to_a_wrong_one() -> None:
    reader = load_chat_model(DEFAULT_MODEL, max_tokens=24)
    state = {"standalone_question": QUESTION, "strips": [STRIP]}
    runtime = make_runtime(Context(candidates=1, verify_below=0.0))
    written = generate(state, runtime, make_deps(generator=reader))["candidates"][0]
    assert "1889" in written["text"] and 0.5 < written["verified"] <= 1
    doubted = judge_answer(reader, QUESTION, [STRIP], "1832")  # in the passage, not the answer
    assert doubted is not None and doubted < written["verified"]
