import pytest

from bench.harness.records import append_record, read_run
from bench.reports.verify_replay import main, replay, separation, sweep
from nodes.finalize import NOT_IN_DOCUMENTS
from tests.unit.bench.factories import record


def _run(qid, verified, *, right=True, answerable=True, **fields):
    candidates = [{"text": "blue", "logprob": -0.1, "verified": verified}] if verified else []
    return record(
        "acrag",
        qid,
        score=float(right and answerable),
        answers=["blue"] if answerable else [],
        prediction="blue" if right else "red",
        candidates=candidates,
        **fields,
    )


RUN = [
    _run(1, 0.9),  # right and sure: kept
    _run(2, 0.6, right=False),  # wrong and unsure: turned away (no harm)
    _run(3, 0.6, answerable=False, right=False),  # unanswerable, answered: now declined
    _run(4, 0.65),  # right but unsure: lost at 0.7
    _run(5, 0.1, abstained=True, right=False),  # abstained already: unchanged
    _run(6, None),  # not checked: stands
]


def test_replay_turns_unsure_answers_into_abstentions():
    at = replay(RUN, 0.7)
    assert (at.abstained, at.right_lost, at.declined_gained) == (3, 1, 1)
    assert at.outcomes == {"d/1": 1.0, "d/2": 0.0, "d/3": 1.0, "d/4": 0.0, "d/5": 0.0, "d/6": 1.0}
    declined = at.records[2]
    assert declined.abstained and declined.prediction == NOT_IN_DOCUMENTS and declined.acc == 0
    assert replay(RUN, 0.0).outcomes["d/3"] == 0.0  # as recorded: the answer stands


def test_the_sweep_keeps_the_right_answers_it_is_told_to():
    strict, _ = sweep(RUN, max_lost=0.0)  # no right answer may be lost: stop below 0.65
    assert strict.right_lost == 0 and strict.declined_gained == 1 and strict.below <= 0.64
    loose, tried = sweep(RUN, max_lost=0.5)
    assert len(tried) == 36 and loose.right >= strict.right


def test_separation_ranks_the_answered_right_above_the_rest():
    # answered and checked: right 0.9 and 0.65 against wrong 0.6 and unanswerable 0.6
    assert separation(RUN) == 1.0  # the abstained (0.1) and the unchecked are left out
    assert separation([_run(1, 0.2), _run(2, 0.9, right=False)]) == 0.0
    assert separation([_run(1, 0.5), _run(2, 0.5, right=False), _run(3, 0.7)]) == 0.75


def test_main_writes_the_replayed_records(tmp_path, capsys):
    run = tmp_path / "run" / "records.jsonl"
    for item in RUN:
        append_record(run, item)
    assert main([str(run.parent), "--below", "0.7", "--out", str(tmp_path / "out")]) == 0
    assert "3 abstained: 1 right answers lost, 1 unanswerable declined" in capsys.readouterr().out
    assert sum(r.abstained for r in read_run(tmp_path / "out")) == 4
    unchecked = tmp_path / "plain" / "records.jsonl"
    append_record(unchecked, _run(1, None))
    with pytest.raises(SystemExit, match="verify_below=0.0"):
        main([str(unchecked.parent), "--dev"])
