"""CRAG's action graded by a second, real evaluator artifact.

By default the bundled one (`models/artifacts/action_evaluator`, trained with on-topic
negatives); a folder named in `Context.action_evaluator` (here the candidate it was copied
from, `docs/bench/evaluator-candidates/mixed`) likewise. The committed evaluator keeps grading
the passages that refinement and abstention read.
"""

from pathlib import Path

import pytest

from graphs.context import Context
from graphs.deps import Deps
from models.evaluator import ACTION_ARTIFACT_DIR, load_evaluator
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


def _decide(text: str, context: Context, events: list) -> dict:
    state = {"standalone_question": QUESTION, "passages": [passage(text, score=None)]}
    return decide_crag(state, make_runtime(context, events), Deps())


@pytest.mark.parametrize(
    ("context", "folder"),
    [
        (Context(), ACTION_ARTIFACT_DIR),
        (
            Context(action_evaluator=str(CANDIDATE), upper_threshold=0.7, lower_threshold=-0.5),
            CANDIDATE,
        ),
    ],
)
def test_the_action_is_graded_by_the_action_artifact_and_passages_keep_the_evaluators(
    context: Context, folder: Path
) -> None:
    events: list = []
    answering, on_topic = _decide(ANSWERS, context, events), _decide(ON_TOPIC, context, events)
    shipped, candidate = load_evaluator(), load_evaluator(folder)
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
    thresholds = [(e["upper"], e["lower"]) for e in events if e["type"] == "crag_action"]
    assert thresholds == [(0.7, -0.5)] * 2  # the bundled artifact's decision, or as set
    assert not [e for e in events if e["type"] == "fallback"]
