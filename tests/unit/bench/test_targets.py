from bench.records import Record
from bench.targets import check_targets, targets_table


def rec(strategy, *, f1, seconds, drop=0.0, qid="1"):
    return Record(
        dataset="d",
        id=qid,
        strategy=strategy,
        question="q",
        answers=["a"],
        prediction="p",
        em=f1,
        f1=f1,
        acc=f1,
        seconds=seconds,
        drop_gold=drop,
    )


def test_targets_are_checked_from_averages():
    records = [
        rec("single", f1=0.4, seconds=2),
        rec("ircot", f1=0.5, seconds=20),
        rec("adaptive", f1=0.5, seconds=6),
        rec("adaptive-oracle", f1=0.6, seconds=4),
        rec("crag", f1=0.8, seconds=3),
        rec("crag", f1=0.6, seconds=3, drop=0.5),
    ]
    found = {t.name.split()[0] + str(i): t for i, t in enumerate(check_targets(records))}
    assert [t.met for t in found.values()] == [True, True, False]
    assert found["adaptive0"].measured == "F1 50.0 vs 50.0; time 30%"
    assert found["adaptive1"].measured == "50% closed"
    assert found["CRAG2"].measured == "75% kept"
    assert "| CRAG at 50% gold dropped keeps >= 90% of its Acc | 75% kept | not met |" in (
        targets_table(records)
    )


def test_no_targets_without_the_strategies():
    assert targets_table([rec("single", f1=1, seconds=1)]) == ""
