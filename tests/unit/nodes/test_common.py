"""`ask_judge`: one helper owns a judge's availability, retries and the fallback event."""

import pytest

from graphs.context import Context
from graphs.deps import JudgeUnavailableError
from nodes._common import ask_judge
from tests.fakes import make_runtime


class Judge:
    """Answer each call with the next reply; an exception in the list is raised."""

    def __init__(self, *replies: object) -> None:
        self.replies = list(replies)
        self.calls = 0

    def answer(self) -> object:
        reply = self.replies[min(self.calls, len(self.replies) - 1)]
        self.calls += 1
        if isinstance(reply, Exception):
            raise reply
        return reply


def ask(judge: Judge | None, events: list, *, attempts: int = 3, missing: str = "") -> object:
    def get() -> Judge:
        if missing:
            raise JudgeUnavailableError(missing)
        assert judge is not None
        return judge

    return ask_judge(
        make_runtime(Context(judge_attempts=attempts), events),
        node="grade_documents",
        judge="evaluator",
        get=get,
        call=lambda built: built.answer(),
        check=lambda value: isinstance(value, float) and -1 <= value <= 1,
        used="Ambiguous",
    )


def test_an_accepted_answer_is_returned_without_events():
    events: list = []
    judge = Judge(0.5)
    assert ask(judge, events) == 0.5
    assert judge.calls == 1 and events == []


@pytest.mark.parametrize("junk", [7.0, ValueError("garbled")], ids=["out-of-range", "raises"])
def test_junk_is_retried_until_a_valid_answer(junk):
    events: list = []
    judge = Judge(junk, junk, -0.25)
    assert ask(judge, events) == -0.25
    assert judge.calls == 3 and events == []


def test_junk_every_time_falls_back_with_the_last_problem():
    events: list = []
    judge = Judge(ValueError("garbled"), 7.0)
    assert ask(judge, events, attempts=2) is None
    assert judge.calls == 2
    assert (  # junk is not a degraded run: no `degraded` reason
        events
        == [
            {
                "type": "fallback",
                "node": "grade_documents",
                "judge": "evaluator",
                "problem": "invalid output: 7.0",
                "used": "Ambiguous",
                "degraded": None,
            }
        ]
    )


def test_a_missing_judge_degrades_the_run_with_the_reason():
    events: list = []
    reason = "the trained evaluator is not available (no artifact); choose 'heuristic' or 'llm'"
    assert ask(None, events, missing=reason) is None
    assert len(events) == 1
    assert (events[0]["problem"], events[0]["degraded"]) == (reason, reason)


def test_other_errors_building_the_judge_are_not_hidden():
    def broken() -> Judge:
        raise RuntimeError("a bug, not a missing artifact")

    with pytest.raises(RuntimeError, match="a bug"):
        ask_judge(
            make_runtime(),
            node="n",
            judge="evaluator",
            get=broken,
            call=lambda built: built.answer(),
            used="Ambiguous",
        )
