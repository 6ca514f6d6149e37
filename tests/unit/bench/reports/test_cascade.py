import math

import pytest

from bench.harness.records import append_record, read_run
from bench.reports.cascade import cascade, main, sweep
from tests.unit.bench.factories import record


def _answer(qid, *, right, seconds, **fields):
    prediction = "blue" if right else "wrong"
    return record(
        "acrag",
        qid,
        score=float(right),
        answers=["blue"],
        prediction=prediction,
        seconds=seconds,
        **fields,
    )


def _small(qid, *, right, logprob, **fields):
    return _answer(qid, right=right, seconds=1.0, logprob=logprob, **fields)


def _big(qid, *, right, **fields):
    return _answer(qid, right=right, seconds=3.0, **fields)


def _runs():
    small = {
        "1": _small(1, right=True, logprob=-0.1),
        "2": _small(2, right=False, logprob=-2.0),  # unsure and wrong: escalating mends it
        "3": _small(3, right=False, logprob=-0.2),  # sure and wrong: kept
        "4": _small(4, right=False, logprob=-0.1, abstained=True),  # abstained: escalates
    }
    big = {
        "1": _big(1, right=False),
        "2": _big(2, right=True),
        "3": _big(3, right=True),
        "4": _big(4, right=True),
    }
    return small, big


def test_an_unsure_or_abstaining_answer_takes_the_big_reader_s_outcome_and_cost():
    small, big = _runs()
    found = cascade(small, big, signal="logprob", below=-1.0)
    assert found.escalated == 2
    assert found.outcomes == {"1": 1.0, "2": 1.0, "3": 0.0, "4": 1.0}
    assert found.right == 0.75
    assert found.seconds == pytest.approx((4 * 1.0 + 2 * 3.0) / 4)


def test_candidates_that_disagree_escalate_and_a_single_one_counts_as_agreeing():
    small, big = _runs()
    small["1"].candidates = [{"text": "blue"}, {"text": "red"}]
    small["3"].candidates = [{"text": "wrong"}]
    found = cascade(small, big, signal="agreement", below=0.5)
    assert found.outcomes["1"] == 0.0  # escalated to the big reader's wrong answer
    assert found.outcomes["3"] == 0.0  # one candidate: kept
    assert found.escalated == 2  # question 1, and question 4 that abstained


def test_the_sweep_keeps_the_best_cascade_within_the_cost_cap():
    small, big = _runs()
    best, tried = sweep(small, big, max_cost=0.7)  # 0.7 x 3 s: at most 1 escalation in 4
    assert best is not None
    assert best.seconds <= 0.7 * 3.0
    assert best.escalated == 1  # only the abstention fits, and it pays
    assert any(c.below == -math.inf for c in tried)
    cheap, _ = sweep(small, big, max_cost=0.1)
    assert cheap is None


def test_the_command_prints_both_readers_and_the_cascade(tmp_path, capsys):
    small, big = _runs()
    for name, run in (("small", small), ("big", big)):
        for r in run.values():
            append_record(tmp_path / name / "records.jsonl", r)
    args = [str(tmp_path / "small"), str(tmp_path / "big")]
    assert main([*args, "--signal", "logprob", "--below", "-1"]) == 0
    out = capsys.readouterr().out
    assert "| cascade (logprob < -1) | 75.0 | 2.5 | 2/4 |" in out
    assert "| big | 75.0 | 3.0 |  |" in out
    with pytest.raises(SystemExit, match="--dev"):
        main(args)


def test_the_cascade_s_records_carry_its_answer_cost_and_models(tmp_path):
    small, big = _runs()
    for r in small.values():
        r.model = "small"
    for r in big.values():
        r.model = "big"
    for name, run in (("small", small), ("big", big)):
        for r in run.values():
            append_record(tmp_path / name / "records.jsonl", r)
    out = tmp_path / "cascade"
    main([str(tmp_path / "small"), str(tmp_path / "big"), "--below", "-1", "--out", str(out)])
    written = {r.id: r for r in read_run(out)}
    assert written["2"].model == "small>big" and written["2"].seconds == 4.0
    assert written["3"].model == "small" and written["3"].prediction == "wrong"
