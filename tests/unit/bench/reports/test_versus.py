from bench.reports.versus import difference, versus_table
from tests.unit.bench.factories import record


def rec(dataset, strategy, qid, score, **fields):
    return record(strategy, qid, dataset=dataset, score=score, **fields)


def test_a_consistent_gain_is_beyond_noise_and_a_coin_flip_is_not():
    records = [rec("nq", "single", i, 0.0) for i in range(30)]
    records += [rec("nq", "crag", i, 1.0 if i % 3 else 0.0) for i in range(30)]
    records += [rec("nq", "ircot", i, float(i % 2)) for i in range(30)]
    records += [rec("nq", "single", i, 0.0) for i in range(30, 32)]  # unpaired: ignored
    gain = difference(records, "crag")
    assert gain.n == 30
    assert round(gain.mean, 1) == 66.7
    assert gain.beyond_noise and gain.low > 40
    assert str(gain).endswith("*")
    flip = difference(records, "ircot", "crag")
    assert flip.mean < 0 and not flip.beyond_noise  # -16.7 over 30 questions: noise
    assert difference(records, "ircot", "single").mean == 50.0


def test_the_average_weighs_datasets_the_same_and_needs_every_one():
    records = [rec("nq", "single", i, 0.0) for i in range(10)]
    records += [rec("nq", "crag", i, 1.0) for i in range(10)]
    records += [rec("popqa", "single", i, 0.0) for i in range(40)]
    records += [rec("popqa", "crag", i, 0.0) for i in range(40)]
    average = difference(records, "crag")
    assert average.mean == 50.0  # (100 + 0) / 2, not 20 from pooling 10 of 50
    assert average.n == 50
    assert difference(records, "crag", dataset="popqa").mean == 0.0
    records += [rec("hotpotqa", "crag", 0, 1.0)]  # crag ran on a set single did not
    assert difference(records, "crag") is None


def test_errors_and_dropped_gold_runs_are_left_out():
    records = [rec("nq", "single", 0, 0.0), rec("nq", "crag", 0, 1.0, error="boom")]
    records += [rec("nq", "single", 1, 0.0), rec("nq", "crag", 1, 1.0, drop_gold=0.5)]
    assert difference(records, "crag") is None
    assert difference(records, "crag", share=0.5) is None  # single did not run at 0.5


def test_table_has_a_cell_per_dataset_and_the_average():
    records = []
    for dataset in ("nq", "popqa"):
        records += [rec(dataset, "single", i, 0.0) for i in range(5)]
        records += [rec(dataset, "crag", i, 1.0) for i in range(5)]
    lines = versus_table(records).splitlines()
    assert lines[0] == "| strategy | nq | popqa | average |"
    assert lines[2].startswith("| crag | +100.0 [+100.0, +100.0]* |")
    assert versus_table([rec("nq", "crag", 0, 1.0)]) == ""
