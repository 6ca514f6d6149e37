"""CRAG's action graded by a second, real evaluator artifact named in the Context.

The candidate trained with on-topic negatives (`docs/bench/evaluator-candidates/mixed`) is
loaded from its folder as `Context.action_evaluator`; the committed evaluator keeps grading
the passages that refinement and abstention read.
"""

from pathlib import Path

import pytest

from graphs.context import Context
from graphs.deps import Deps
from models.evaluator import load_evaluator
from nodes.grade_documents import decide_crag, grading_batch
from tests.fakes import make_runtime, passage

pytestmark = pytest.mark.integration

CANDIDATE = Path(__file__).parents[3] / "docs/bench/evaluator-candidates/mixed"
QUESTION = "Who designed the Eiffel Tower?"
ANSWERS = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was designed by the "
    "engineers Maurice Koechlin and Emile Nouguier of Gustave Eiffel's company."
)
ON_TOPIC = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. It is 330 metres tall and "
    "was the tallest man-made structure in the world for 41 years."
)


def _decide(text: str, events: list) -> dict:
    state = {"standalone_question": QUESTION, "passages": [passage(text, score=None)]}
    context = Context(action_evaluator=str(CANDIDATE), upper_threshold=0.7, lower_threshold=-0.5)
    return decide_crag(state, make_runtime(context, events), Deps())


def test_the_action_is_graded_by_the_named_artifact_and_passages_keep_the_evaluators() -> None:
    events: list = []
    answering, on_topic = _decide(ANSWERS, events), _decide(ON_TOPIC, events)
    shipped, candidate = load_evaluator(), load_evaluator(CANDIDATE)
    for out, text in ((answering, ANSWERS), (on_topic, ON_TOPIC)):
        (action_grade,) = out["crag_scores"]
        assert -1.0 <= action_grade <= 1.0
        texts, _ = grading_batch([text], Context(), question=QUESTION)
        assert out["passages"][0]["score"] == pytest.approx(
            max(shipped.score(QUESTION, texts)), abs=1e-4
        )  # the committed evaluator's grade: best of the passage and its windows
        assert action_grade == pytest.approx(max(candidate.score(QUESTION, texts)), abs=1e-4)
    assert answering["crag_scores"][0] > on_topic["crag_scores"][0]
    assert answering["crag_action"] == "Correct"
    assert not [e for e in events if e["type"] == "fallback"]
