import pytest

from bench.harness.paired import paired_difference
from bench.harness.records import Record
from tests.unit.bench.factories import record


def rec(qid: str, f1: float, strategy: str = "single") -> Record:
    return record(strategy, qid, em=0.0, f1=f1, acc=0.0)


def test_a_clear_gain_has_an_interval_above_zero():
    a = [rec(str(i), 1.0) for i in range(30)]
    b = [rec(str(i), 0.0 if i % 3 else 1.0) for i in range(30)]
    found = paired_difference(a, b)
    assert found.n == 30 and found.mean == pytest.approx(200 / 3)
    assert 0 < found.low < found.mean < found.high <= 100


def test_noise_straddles_zero():
    a = [rec(str(i), float(i % 2)) for i in range(20)]
    b = [rec(str(i), float((i + 1) % 2)) for i in range(20)]
    found = paired_difference(a, b)
    assert found.mean == 0 and found.low < 0 < found.high


def test_only_shared_questions_and_the_chosen_strategies_count():
    a = [rec("1", 1.0, "x"), rec("2", 1.0, "y"), rec("3", 1.0, "x")]
    b = [rec("1", 0.0, "z")]
    assert paired_difference(a, b, strategy_a="x").n == 1
    with pytest.raises(ValueError, match="share no question"):
        paired_difference(a, b, strategy_a="y")


def test_followups_pairs_each_follow_up_with_the_same_question_asked_alone(tmp_path, capsys):
    from bench.harness.paired import main
    from bench.harness.turn_records import TurnRecord, append_records

    turns = [
        TurnRecord("c1", "threads", 0, "Who built it?", "Who built it?", ["x"], acc=1.0),
        *(
            TurnRecord("c1", "threads", i, "Where?", "Where?", ["y"], acc=0.0, solo_acc=1.0)
            for i in range(1, 9)
        ),
        TurnRecord("c1", "threads", 9, "When?", "When?", ["z"], acc=1.0, solo_acc=1.0),
        TurnRecord("c1", "threads", 10, "Why?", "Why?", ["z"], solo_acc=1.0, error="boom"),
    ]
    path = tmp_path / "records.jsonl"
    append_records(path, turns)
    assert main([str(path), str(path), "--followups"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("ACC STANDALONE - FOLLOW-UP +88.9 [") and "(n=9)" in shown
