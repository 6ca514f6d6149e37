"""Fuzz (CI size): generated questions and settings through the graph with fast fakes.

The full count runs with `.venv/bin/python -m bench.suites.fuzz --count 500`.
"""

import random

import pytest

from bench.suites.fuzz import check_run, make_case, run_case, run_fuzz
from graphs import InvalidQuestionError

CI_COUNT = 60


def test_fuzz_ci_count_has_no_exceptions_and_stays_within_caps() -> None:
    report = run_fuzz(CI_COUNT, seed=2026)
    assert report.failures == []
    assert report.answered + report.rejected == CI_COUNT
    assert report.answered > CI_COUNT // 2  # most generated questions are valid


@pytest.mark.parametrize("seed", range(5))
def test_each_generated_case_ends_in_an_answer_or_the_documented_error(seed: int) -> None:
    case = make_case(random.Random(seed))
    state = run_case(case)
    if state is not None:
        assert check_run(case, state) == []


def test_invalid_generated_questions_raise_only_invalid_question_error() -> None:
    rng = random.Random(7)
    cases = [make_case(rng) for _ in range(200)]
    invalid = [c for c in cases if not c.question.strip() or "\x00" in c.question][:5]
    assert invalid
    for case in invalid:
        assert run_case(case) is None  # run_case re-raises anything but a matching rejection
    case = invalid[0]
    case.question = "\x00"
    with pytest.raises(InvalidQuestionError):
        from graphs import build_graph

        build_graph().invoke({"question": case.question}, context=case.context)


def test_the_paragraph_cap_counts_ircot_retrievals_not_a_reflection_retry():
    case = make_case(random.Random(0))
    case.context.ircot_max_paragraphs = 2
    ircot = [{"type": "retrieval", "node": "retrieve", "new": 2}]
    retry = [
        {"type": "retry", "node": "reflect"},
        {"type": "retrieval", "node": "retrieve", "new": 4},
    ]
    answer = [{"type": "answer", "node": "finalize"}]
    state = {"answer": "Paris", "route": "C", "events": [*ircot, *retry, *answer]}
    assert check_run(case, state) == []
    over = [*ircot, {"type": "retrieval", "node": "retrieve", "new": 1}, *retry, *answer]
    assert check_run(case, {**state, "events": over}) == ["3 IRCoT paragraphs > 2"]
