"""Option lists graded by their best entry and kept whole, with the committed evaluator.

The chunk is the part of diffutils' real `diff --help` that ingestion cuts around
`-w, --ignore-all-space`: four entries, no sentence end, so graded as one text the evaluator
sees it as a whole and rates it low for a question about one of its options.
"""

from pathlib import Path

import pytest

from graphs.context import Context
from models.evaluator import load_evaluator
from nodes.grade_documents import decide_crag, grading_batch
from nodes.refine_strips import refine_strips
from tests.fakes import make_deps, make_runtime, passage

pytestmark = pytest.mark.integration

HELP = Path(__file__).parents[3] / "bench/datasets/docqa/docs/diffutils/diff-help.txt"
QUESTION = "How do I make diff ignore all whitespace differences?"
PROSE = (
    "The --ignore-space-change option ignores white space at line end, and considers all "
    "other sequences of one or more white space characters to be equivalent. "
    "The --ignore-tab-expansion option ignores white space changes due to tab expansion."
)


@pytest.fixture(scope="module")
def chunk() -> str:
    text = HELP.read_text()
    start = text.index("  -w, --ignore-all-space")
    return text[start : text.index("\n", text.index("-a, --text"))]


def test_a_list_is_graded_by_its_best_entry_and_refinement_keeps_it_whole(chunk: str) -> None:
    evaluator = load_evaluator()
    texts, _ = grading_batch([chunk], Context(option_lists="sentences"), question=QUESTION)
    (flat,) = evaluator.score(QUESTION, texts)  # one window: the list itself
    texts, _ = grading_batch([chunk], Context(option_lists="whole"), question=QUESTION)
    assert any(t.startswith("-w, --ignore-all-space") for t in texts[1:])  # entries as windows
    best = max(evaluator.score(QUESTION, texts))
    assert best > flat

    state = {
        "standalone_question": QUESTION,
        "passages": [passage(chunk, score=None), passage(PROSE, score=None, position=1)],
    }
    context = Context(option_lists="whole")
    deps = make_deps(evaluator=evaluator)
    graded = decide_crag(state, make_runtime(context), deps)
    assert graded["passages"][0]["score"] == pytest.approx(best, abs=1e-4)
    out = refine_strips({**state, **graded}, make_runtime(context), deps)
    lists = [s for s in out["strips"] if "--ignore-all-space" in s["text"]]
    assert len(lists) == 1 and lists[0]["kept"]
    lines = lists[0]["text"].splitlines()  # whole, the neighbours beside it, one a line
    assert lines[0].startswith("-w, --ignore-all-space") and len(lines) == 4
    assert any(line.startswith("-a, --text") for line in lines)
