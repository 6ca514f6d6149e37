"""`acrag train`: where artifacts go, and `train labels` end to end with a fake runner."""

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from app import cmd_labels
from app.cli import main
from app.cmd_train import COMMITTED, artifact_out
from graphs import Context
from models.errors import UserError


def test_training_writes_a_new_folder_in_the_data_directory_by_default(tmp_path) -> None:
    out = artifact_out("classifier", None, overwrite=False, home=tmp_path)
    assert out.parent == tmp_path / "artifacts" and out.name.startswith("classifier-")
    assert not out.exists()


def test_committed_artifacts_are_replaced_only_when_told(tmp_path) -> None:
    committed = COMMITTED / "evaluator"
    with pytest.raises(UserError, match="--overwrite"):
        artifact_out("evaluator", committed, overwrite=False, home=tmp_path)
    with pytest.raises(UserError, match="--overwrite"):
        artifact_out("evaluator", COMMITTED, overwrite=False, home=tmp_path)
    assert artifact_out("evaluator", committed, overwrite=True, home=tmp_path) == committed
    assert artifact_out("evaluator", None, overwrite=True, home=tmp_path) == committed


def test_an_existing_artifact_elsewhere_is_not_overwritten_either(tmp_path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "manifest.json").write_text("{}")
    with pytest.raises(UserError, match="--overwrite"):
        artifact_out("classifier", tmp_path / "mine", overwrite=False, home=tmp_path)
    fresh = tmp_path / "fresh"
    assert artifact_out("classifier", fresh, overwrite=False, home=tmp_path) == fresh


@dataclass
class Answer:
    prediction: str


class RightWithRetrieval:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def run(self, question: str, strategy: str, *, home: Path) -> Answer:
        self.calls.append(strategy)
        assert (home / "ready.json").is_file()
        return Answer("I do not know" if strategy == "no-retrieval" else "Oslo")


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    rows = [
        {
            "id": f"q{i}",
            "dataset": "nq",
            "hop": "single",
            "question": f"Capital {i}?",
            "answers": ["Oslo"],
            "passages": [{"title": "Oslo", "text": f"Oslo fact {i}.", "is_supporting": True}],
        }
        for i in range(4)
    ]
    (tmp_path / "data" / "qa").mkdir(parents=True)
    path = tmp_path / "data" / "qa" / "nq.train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path / "data"


def test_train_labels_appends_one_reader_and_resumes(tmp_path, data_dir, monkeypatch, capsys):
    runner = RightWithRetrieval()
    monkeypatch.setattr(cmd_labels, "_graph_runner", lambda reader: runner)
    monkeypatch.setattr("bench.harness.corpus._store_ingest", lambda path, home, collection: None)
    monkeypatch.setattr("training.silver._quiet_ingest", lambda path, home, collection: None)
    argv = ["--home", str(tmp_path / "home"), "train", "labels", "--data-dir", str(data_dir)]
    argv += ["--per-dataset", "3", "--limit", "2", "--no-cache"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    reader = Context().generator_model  # the default reader is the graph's
    out = tmp_path / "home" / "labels" / f"silver.train.{reader}.jsonl"
    assert (report["labelled"], report["reader"], Path(report["file"])) == (2, reader, out)
    assert main(argv) == 0  # resumes: the third question of the subset
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len({r["id"] for r in rows}) == len(rows) == 3
    assert {(r["label"], r["source"], r["reader"]) for r in rows} == {("B", "silver", reader)}
    assert (runner.calls.count("single"), runner.calls.count("ircot")) == (3, 0)  # B was right
    capsys.readouterr()
    assert main([*argv, "--per-dataset", "4", "--every-route"]) == 0  # the fourth question
    assert runner.calls.count("ircot") == 1
    assert main([*argv, "--model", "gguf:/other.gguf", "--out", str(out)]) != 0
    assert f"other readers ({reader})" in capsys.readouterr().err


def test_train_classifier_adds_the_committed_route_a_set_unless_told(tmp_path, monkeypatch, capsys):
    from training import train_classifier as training
    from training.route_a import ROUTE_A_FILE

    calls: list[dict] = []

    def fake_train(data_dir, out, config, **options):
        calls.append({"config": config, **options})
        return {"kind": "classifier"}

    monkeypatch.setattr(training, "train_classifier", fake_train)
    argv = ["--home", str(tmp_path), "train", "classifier", "--out", str(tmp_path / "clf")]
    assert main(argv) == 0
    assert main([*argv, "--route-a-repeat", "0", "--route-a", str(tmp_path / "mine.jsonl")]) == 0
    assert [(c["route_a_file"], c["config"].route_a_repeat) for c in calls] == [
        (ROUTE_A_FILE, None),
        (tmp_path / "mine.jsonl", 0),
    ]
    capsys.readouterr()
    assert main([*argv, "--route-a-repeat", "-1"]) != 0
    assert "--route-a-repeat must be 0 or more" in capsys.readouterr().err
