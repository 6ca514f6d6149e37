from graphs.context import Context
from nodes.grade_documents import grade_documents
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
    out = grade_documents(
        state, make_runtime(Context(), events), make_deps(evaluator=KeywordEvaluator(("Paris",)))
    )
    assert [p["score"] for p in out["passages"]] == [0.9, -0.9]
    assert out["crag_action"] == "Correct"
    assert [e["type"] for e in events] == ["grades", "crag_action"]
    assert events[1]["above_upper"] == 1


def test_junk_evaluator_means_ambiguous():
    judge = JunkJudge()
    state = {"standalone_question": "q", "passages": [{**passage("x"), "score": None}]}
    events = []
    out = grade_documents(
        state, make_runtime(Context(judge_attempts=3), events), make_deps(evaluator=judge)
    )
    assert judge.calls == 3
    assert out["crag_action"] == "Ambiguous"
    assert events[0]["type"] == "fallback" and events[0]["used"] == "Ambiguous"


def test_nothing_retrieved_is_incorrect_without_calling_the_evaluator():
    judge = JunkJudge()
    out = grade_documents(
        {"standalone_question": "q", "passages": []}, make_runtime(), make_deps(evaluator=judge)
    )
    assert out["crag_action"] == "Incorrect" and judge.calls == 0
