from bench.harness.records import append_record
from bench.reports.rescore_answers import main, rescored
from tests.unit.bench.factories import record


def _runs():
    return [
        # scored 0 when SQuAD's normaliser glued `--pid=PID` into `pidpid`: right today
        record("single", 1, score=0.0, answers=["--pid"], prediction="--pid=PID"),
        # scored 1 when "mode" matched `--mode`: the option is not named, wrong today
        record("single", 2, score=1.0, answers=["-m", "--mode"], prediction="set file mode"),
        record("single", 3, score=1.0, answers=["Paris"], prediction="Paris"),
        # not counted: unanswerable, or a run that ended in an error
        record("single", 4, score=0.0, answers=[], prediction="x"),
        record("single", 5, score=0.0, answers=["y"], prediction="", error="Boom"),
        # an abstention answers nothing, whatever its sentence holds
        record(
            "crag", 1, score=0.0, answers=["-i"], prediction="I could not find it.", abstained=True
        ),
    ]


def test_today_s_scorer_is_applied_and_the_moved_answers_are_listed():
    table = rescored(_runs())
    n, then, now, changed = table["single"]
    assert n == 3
    assert then == 2 / 3 and now == 2 / 3
    moved = {(c.record.id, c.record.acc, c.now) for c in changed}
    assert moved == {("1", 0.0, 1.0), ("2", 1.0, 0.0)}
    assert table["crag"] == (1, 0.0, 0.0, [])


def test_the_command_prints_both_figures_and_each_change(tmp_path, capsys):
    for r in _runs():
        append_record(tmp_path / "records.jsonl", r)
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "single: 3 answerable, Acc 66.7 recorded, 66.7 today (2 changed)" in out
    assert "d/1: 0 -> 1  '--pid=PID'" in out
