"""On-topic hard negatives for real: train with them, resume a LoRA artifact, score sufficiency."""

import json
from pathlib import Path

import pytest

from app.cli import main
from models.evaluator import load_evaluator
from training import compare_evaluators
from training.sufficiency import evidence_sets, score_sets

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def _record(index: int) -> dict[str, object]:
    answer = f"Answer{index}"
    return {
        "id": f"q{index}",
        "dataset": "tiny",
        "hop": "single",
        "split": "train",
        "question": f"What is the name of thing number {index}?",
        "answers": [answer],
        "passages": [
            {
                "title": f"T{index}",
                "text": f"Thing {index} is old. Thing {index} is called {answer}. It is blue.",
                "is_supporting": True,
            },
            {
                "title": f"T{index}",
                "text": f"Thing {index} has a long history.",
                "is_supporting": None,
            },
        ],
    }


@pytest.fixture
def tiny_data(tmp_path: Path) -> Path:
    qa = tmp_path / "data" / "qa"
    qa.mkdir(parents=True)
    (qa / "tiny.train.jsonl").write_text("".join(json.dumps(_record(i)) + "\n" for i in range(6)))
    return tmp_path / "data"


def test_hard_negatives_train_and_a_lora_artifact_resumes(tiny_data: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    common = ["train", "evaluator", "--data-dir", str(tiny_data), "--lora-rank", "4"]
    common += ["--no-calibrate", "--steps", "2"]
    assert main([*common, "--negatives", "hard", "--out", str(first)]) == 0
    made = json.loads((first / "manifest.json").read_text())
    assert made["hyperparameters"]["negatives"] == "hard"
    assert made["training_data"]["pairs"] > 12  # answer-less negatives and windows joined
    resumed = ["--negatives", "hard-focus", "--resume", str(first), "--seed", "14"]
    assert main([*common, *resumed, "--out", str(second)]) == 0
    manifest = json.loads((second / "manifest.json").read_text())
    assert [p["seed"] for p in manifest["training_phases"]] == [13, 14]
    assert manifest["weights_sha256"] != made["weights_sha256"]
    third = tmp_path / "third"  # the shipped recipe's pairs plus the on-topic ones
    mixed = ["--negatives", "mixed", "--resume", str(second), "--seed", "15"]
    assert main([*common, *mixed, "--out", str(third)]) == 0
    manifest = json.loads((third / "manifest.json").read_text())
    assert [p["seed"] for p in manifest["training_phases"]] == [13, 14, 15]
    # The two artifacts compared on the same pairs, with an interval per measure.
    rows_file = tmp_path / "rows.json"
    data = ["--data", str(tiny_data / "qa" / "tiny.train.jsonl"), "--json", str(rows_file)]
    assert compare_evaluators.main([str(first), str(third), *data]) == 0
    rows = {r["measure"]: r for r in json.loads(rows_file.read_text())}
    assert {"all", "positive_vs_hard", "positive_vs_answerless"} <= set(rows)
    for row in rows.values():
        assert 0.0 <= row["a"] <= 1.0 and 0.0 <= row["b"] <= 1.0
        assert -1.0 <= row["low"] <= row["high"] <= 1.0


def test_sufficiency_scores_of_the_committed_evaluator() -> None:
    records = [_record(i) for i in range(3)]
    sets = evidence_sets(records, per_dataset=3, set_size=2)
    scored = score_sets(sets, load_evaluator())
    assert len(scored) == len(sets) == 6
    for row in scored:
        assert -1.0 <= row["passage_max"] <= row["window_max"] <= 1.0
