import json

from bench.harness.records import append_record
from bench.reports.by_kind import by_kind, main
from tests.unit.bench.factories import record

KINDS = {"1": "single-hop", "2": "single-hop", "3": "two-hop", "4": "unanswerable"}


def _run():
    return [
        record("acrag", 1, score=0.0, answers=["-k"], prediction="Use -k."),  # rescored: right
        record("acrag", 2, score=0.0, answers=["-x"], abstained=True),  # a false abstention
        record("acrag", 3, score=1.0, answers=["--depth"], prediction="--depth 1"),
        record("acrag", 4, score=0.0, answers=[], abstained=True),  # declined: right
        record("acrag", 5, score=1.0, answers=["y"], prediction="y"),  # not in the set: left out
        record("single", 1, score=0.0, answers=["-k"], error="Boom"),  # errors: left out
    ]


def test_each_kind_is_counted_with_its_own_rule_and_today_s_scorer():
    table = by_kind(_run(), KINDS)
    assert table["acrag"] == {
        "single-hop": (1, 2),
        "two-hop": (1, 1),
        "unanswerable": (1, 1),
        "false abstention": (1, 3),
    }
    assert "single" not in table


def test_the_command_prints_one_row_per_strategy(tmp_path, capsys):
    for r in _run():
        append_record(tmp_path / "records.jsonl", r)
    questions = tmp_path / "test.jsonl"
    rows = [
        {"id": "1", "hop": "single", "answers": ["-k"]},
        {"id": "2", "hop": "single", "answers": ["-x"]},
        {"id": "3", "hop": "multi", "answers": ["--depth"]},
        {"id": "4", "hop": "single", "answers": []},
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert main([str(tmp_path), str(questions)]) == 0
    out = capsys.readouterr().out
    assert "| acrag | 50.0% (1/2) | 100.0% (1/1) | 100.0% (1/1) | 33.3% (1/3) |" in out
