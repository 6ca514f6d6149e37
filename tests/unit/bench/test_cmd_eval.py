import json

import pytest

import bench.harness.corpus
import bench.harness.runner
from app.cli import main
from app.cmd_eval import parse_shares
from graphs.context import parse_settings
from models.errors import UserError

from .conftest import FakeRunner


def test_parse_shares_and_settings():
    assert parse_shares("0.5,0,0.25,0.5") == [0.0, 0.25, 0.5]
    with pytest.raises(UserError):
        parse_shares("0,2")
    with pytest.raises(UserError):
        parse_shares("half")
    assert parse_settings(["top_k=6", "evaluator=trained", "reflect=false"]) == {
        "top_k": 6,
        "evaluator": "trained",
        "reflect": False,
    }
    with pytest.raises(UserError):
        parse_settings(["no_such_setting=1"])


def test_cli_runs_writes_reports_and_resumes(tmp_path, data_file, monkeypatch, capsys):
    built = []

    def fake_runner(**kwargs):
        built.append(kwargs)
        return FakeRunner()

    monkeypatch.setattr(bench.harness.runner, "GraphRunner", fake_runner)
    monkeypatch.setattr(bench.harness.corpus, "_store_ingest", lambda jsonl, home, collection: None)
    out = tmp_path / "out"
    argv = [
        "--home",
        str(tmp_path / "home"),
        "eval",
        "--data",
        str(data_file),
        "--strategies",
        "no-retrieval,single,adaptive-oracle",
        "--out",
        str(out),
        "--limit",
        "2",
        "--set",
        "top_k=3",
        "--no-warm-up",
    ]
    assert main(argv) == 0
    shown = capsys.readouterr().out
    assert "| single | 2 | 100.0 |" in shown
    assert "| adaptive-oracle | 2 | 100.0 |" in shown
    assert {p.name for p in out.iterdir()} >= {
        "records.jsonl",
        "oracle.jsonl",
        "results.md",
        "summary.json",
        "f1_vs_time.png",
    }
    assert built[0]["settings"] == {"prompt_cache": False, "top_k": 3}  # cold start by default
    info = json.loads((out / "run.json").read_text())
    assert info["contexts"]["single"]["top_k"] == 3
    assert info["contexts"]["single"]["prompt_cache"] is False
    assert (info["cold_start"], info["interleave"]) == (True, True)
    assert info["contexts"]["single"]["route"] == "B"
    assert "adaptive-oracle" not in info["contexts"]
    assert main(argv) == 0
    assert len(built) == 1  # the second run found everything done


def test_cli_flags_warm_the_prompt_cache_and_fix_the_order(tmp_path, data_file, monkeypatch):
    built, runners = [], []

    def fake_runner(**kwargs):
        built.append(kwargs)
        runners.append(FakeRunner())
        return runners[-1]

    monkeypatch.setattr(bench.harness.runner, "GraphRunner", fake_runner)
    monkeypatch.setattr(bench.harness.corpus, "_store_ingest", lambda jsonl, home, collection: None)
    out = tmp_path / "out"
    argv = ["--home", str(tmp_path / "home"), "eval", "--data", str(data_file), "--out", str(out)]
    strategies = ["--strategies", "no-retrieval,single,ircot", "--no-warm-up"]
    assert main([*argv, *strategies, "--warm-prompt-cache", "--fixed-order"]) == 0
    assert built[0]["settings"] == {"prompt_cache": True}
    assert [s for _, s in runners[0].calls] == ["no-retrieval", "single", "ircot"] * 3
    info = json.loads((out / "run.json").read_text())
    assert (info["cold_start"], info["interleave"]) == (False, False)


def test_cli_rejects_unknown_strategy(tmp_path, data_file, capsys):
    argv = [
        "eval",
        "--data",
        str(data_file),
        "--strategies",
        "single,magic",
        "--out",
        str(tmp_path / "out"),
    ]
    assert main(argv) == 2
    assert "unknown strategies" in capsys.readouterr().err
