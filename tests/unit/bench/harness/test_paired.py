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


def test_robustness_runs_are_paired_at_one_share_dropped_and_by_acc_lost(tmp_path, capsys):
    from bench.harness.paired import acc_lost, main
    from bench.harness.records import write_records

    def at(strategy, qid, drop, acc):
        return record(strategy, qid, score=acc, drop_gold=drop)

    # single loses 3 of 4 questions from 0 to 0.5 dropped, crag one of them
    single = [at("single", i, 0.0, 1.0) for i in range(4)]
    single += [at("single", i, 0.5, float(i == 0)) for i in range(4)]
    crag = [at("crag", i, 0.0, 1.0) for i in range(4)]
    crag += [at("crag", i, 0.5, float(i != 1)) for i in range(4)]
    assert acc_lost(single, 0.0, 0.5) == {
        ("d", "0"): 0.0,
        ("d", "1"): 1.0,
        **{("d", str(i)): 1.0 for i in (2, 3)},
    }
    path = tmp_path / "records.jsonl"
    write_records(path, [*single, *crag])
    args = [str(path), str(path), "--strategy-a", "single", "--strategy-b", "crag"]
    assert main([*args, "--loss", "0", "0.5"]) == 0
    assert capsys.readouterr().out.startswith("ACC LOST, A - B +50.0 [")
    assert main([*args, "--drop", "0.5"]) == 0
    assert "ACC -50.0" in capsys.readouterr().out  # single 1 of 4, crag 3 of 4
    with pytest.raises(SystemExit):  # two shares in the records and none chosen
        main(args)
    assert "several shares of gold dropped [0.0, 0.5]" in capsys.readouterr().err
