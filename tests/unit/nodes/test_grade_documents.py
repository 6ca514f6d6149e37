from graphs.context import Context
from nodes.grade_documents import decide_crag, grade_passages
from tests.fakes import JunkJudge, KeywordEvaluator, make_deps, make_runtime, passage


def test_grades_only_ungraded_passages_and_decides():
    state = {
        "standalone_question": "q",
        "passages": [
            passage("old", score=0.9),
            {**passage("Paris text"), "score": None},
            {**passage("other"), "score": None},
        ],
    }
    events = []
    out = decide_crag(
        state, make_runtime(Context(), events), make_deps(evaluator=KeywordEvaluator(("Paris",)))
    )
    assert [p["score"] for p in out["passages"]] == [0.9, -0.9]
    assert out["crag_action"] == "Correct" and out["crag_scores"] == [0.9, -0.9]
    assert [e["type"] for e in events] == ["grades", "crag_action"]
    assert events[1]["above_upper"] == 1 and events[1]["best"] == 0.9
    assert events[1]["graded"] == 2


def test_web_passages_are_not_graded_by_origin():
    evaluator = KeywordEvaluator(("Paris",))
    state = {
        "standalone_question": "q",
        "passages": [passage("Paris on the web", score=None, origin="web")],
    }
    out = decide_crag(state, make_runtime(), make_deps(evaluator=evaluator))
    assert evaluator.calls == 0 and "passages" not in out  # the web passage keeps score None
    assert out["crag_action"] == "Incorrect"  # no local passage was retrieved


def test_junk_evaluator_means_ambiguous():
    judge = JunkJudge()
    state = {"standalone_question": "q", "passages": [{**passage("x"), "score": None}]}
    events = []
    out = decide_crag(
        state, make_runtime(Context(judge_attempts=3), events), make_deps(evaluator=judge)
    )
    assert judge.calls == 3
    assert out["crag_action"] == "Ambiguous" and out["degraded"] == []
    assert events[0]["type"] == "fallback" and events[0]["used"] == "Ambiguous"
    assert events[-1]["best"] is None


def test_nothing_retrieved_is_incorrect_without_calling_the_evaluator():
    judge = JunkJudge()
    out = decide_crag(
        {"standalone_question": "q", "passages": []}, make_runtime(), make_deps(evaluator=judge)
    )
    assert out["crag_action"] == "Incorrect" and judge.calls == 0


def test_ircot_grading_decides_no_crag_action():
    events = []
    state = {"standalone_question": "q", "passages": [{**passage("Paris text"), "score": None}]}
    out = grade_passages(
        state, make_runtime(events=events), make_deps(evaluator=KeywordEvaluator(("Paris",)))
    )
    assert [p["score"] for p in out["passages"]] == [0.9]
    assert "crag_action" not in out and [e["type"] for e in events] == ["grades"]
