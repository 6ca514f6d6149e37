from bench.harness.records import append_record
from bench.reports.headline import common_questions, headline_table, main
from tests.unit.bench.factories import record


def rec(dataset, strategy, qid, score, *, calls=1):
    return record(
        strategy,
        qid,
        dataset=dataset,
        score=score,
        llm_calls=calls,
        prompt_tokens=90,
        generated_tokens=10,
        seconds=2.0,
    )


def test_runs_side_by_side_with_intervals_and_costs():
    dev = [rec(d, "single", i, 0.0) for d in ("nq", "popqa") for i in range(10)]
    dev += [rec(d, "acrag", i, 1.0, calls=3) for d in ("nq", "popqa") for i in range(10)]
    docs = [rec("usrdoc", "single", i, 1.0) for i in range(4)]
    docs += [rec("usrdoc", "acrag", i, float(i % 2)) for i in range(4)]
    lines = headline_table({"dev": dev, "docs": docs}).splitlines()
    assert lines[0].startswith("| strategy | dev F1 | vs single | docs F1 | vs single |")
    assert lines[2] == "| single | 0.0 |  | 100.0 |  | 1.00 | 100 | 2.0 |"
    assert lines[3].startswith("| acrag | 100.0 | +100.0 [+100.0, +100.0]* | 50.0 | -50.0 [")
    assert lines[3].endswith("| 3.00 | 100 | 2.0 |")


def test_command_reads_folders(tmp_path, capsys):
    for run in (rec("nq", "single", 0, 0.0), rec("nq", "crag", 0, 1.0)):
        append_record(tmp_path / "records.jsonl", run)
    assert main([str(tmp_path), "--names", "toy"]) == 0
    assert "| crag | 100.0 | +100.0" in capsys.readouterr().out


def test_common_keeps_only_questions_every_strategy_answered(tmp_path, capsys):
    runs = [rec("nq", "single", i, float(i > 0)) for i in range(3)] + [rec("nq", "ircot", 0, 1.0)]
    assert [(r.strategy, r.id) for r in common_questions(runs)] == [("single", "0"), ("ircot", "0")]
    for run in runs:
        append_record(tmp_path / "records.jsonl", run)
    assert main([str(tmp_path)]) == 0
    assert "| single | 66.7 |" in capsys.readouterr().out
    assert main([str(tmp_path), "--common"]) == 0
    assert "| single | 0.0 |" in capsys.readouterr().out
