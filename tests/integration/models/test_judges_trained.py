"""The committed learned judges, loaded offline, and both training commands on a tiny slice."""

import json
from pathlib import Path

import pytest

from app.cli import main
from models.classifier import load_classifier
from models.evaluator import Thresholds, load_evaluator, load_thresholds
from models.judges import ComplexityClassifier, RetrievalEvaluator

pytestmark = pytest.mark.integration

QUESTION = "Who wrote the play Hamlet?"
RELEVANT = (
    "Hamlet is a tragedy written by William Shakespeare sometime between 1599 and 1601. "
    "It is Shakespeare's longest play."
)
IRRELEVANT = "The Amazon river flows through Brazil, Peru and Colombia into the Atlantic Ocean."


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def test_committed_evaluator_loads_offline_and_ranks_a_relevant_passage_first() -> None:
    evaluator = load_evaluator()
    assert isinstance(evaluator, RetrievalEvaluator)
    relevant, irrelevant = evaluator.score(QUESTION, [RELEVANT, IRRELEVANT])
    assert -1.0 <= irrelevant < relevant <= 1.0
    assert evaluator.score(QUESTION, []) == []


def test_committed_thresholds_are_ordered_and_match_the_loaded_evaluator() -> None:
    thresholds = load_thresholds()
    assert isinstance(thresholds, Thresholds)
    assert -1.0 <= thresholds.lower <= thresholds.upper <= 1.0
    # The manifest's calibration keeps the strip filter; upper/lower may come from decision.json
    assert load_evaluator().thresholds.strip_filter == thresholds.strip_filter  # type: ignore[union-attr]


def test_committed_classifier_probabilities_sum_to_one() -> None:
    classifier = load_classifier()
    assert isinstance(classifier, ComplexityClassifier)
    decisions = classifier.classify(
        [QUESTION, "Who was the father of the director of the film that won Best Picture in 1995?"]
    )
    for decision in decisions:
        assert set(decision.probabilities) == {"A", "B", "C"}
        assert sum(decision.probabilities.values()) == pytest.approx(1.0)
        assert decision.route == max(decision.probabilities, key=decision.probabilities.__getitem__)


def _record(index: int, hop: str) -> dict[str, object]:
    answer = f"Answer{index}"
    return {
        "id": f"q{index}",
        "dataset": "tiny",
        "hop": hop,
        "split": "train",
        "question": f"What is the name of thing number {index}?",
        "answers": [answer],
        "passages": [
            {
                "title": f"T{index}",
                "text": f"Thing {index} is called {answer}. It is old.",
                "is_supporting": True,
            },
            {
                "title": f"D{index}",
                "text": f"Something else {index} is unrelated. Really.",
                "is_supporting": False,
            },
        ],
    }


@pytest.fixture
def tiny_data(tmp_path: Path) -> Path:
    qa = tmp_path / "data" / "qa"
    qa.mkdir(parents=True)
    rows = [_record(i, "single" if i % 2 else "multi") for i in range(6)]
    (qa / "tiny.train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path / "data"


@pytest.mark.parametrize(
    ("architecture", "extra"),
    [
        ("embedding-head", []),
        ("cross-encoder", ["--lora-rank", "4"]),
        ("cross-encoder", ["--top-layers", "1", "--lora-rank", "0"]),
    ],
)
def test_train_evaluator_runs_a_few_steps(
    tiny_data: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    architecture: str,
    extra: list[str],
) -> None:
    out = tmp_path / "evaluator"
    args = ["train", "evaluator", "--data-dir", str(tiny_data), "--out", str(out)]
    options = ["--architecture", architecture, "--steps", "2", "--limit", "4", "--no-calibrate"]
    assert main([*args, *options, *extra]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    saved = {"embedding-head": "embedding-head", "cross-encoder": "fine-tuned-lora"}
    if "--top-layers" in extra:
        saved["cross-encoder"] = "fine-tuned-top"
    assert manifest["kind"] == "evaluator" and manifest["architecture"] == saved[architecture]
    assert manifest["training_data"]["questions"] == 4
    if architecture == "cross-encoder":
        assert manifest["training"]["steps"] == 2
    if "--lora-rank" in extra and "--top-layers" not in extra:
        assert manifest["lora"] == {"rank": 4, "alpha": 32.0}
    assert json.loads(capsys.readouterr().out)["kind"] == "evaluator"
    score = load_evaluator(out).score(QUESTION, [RELEVANT])
    assert -1.0 <= score[0] <= 1.0


def test_train_classifier_runs_a_few_steps(tiny_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "classifier"
    args = ["train", "classifier", "--data-dir", str(tiny_data), "--out", str(out)]
    assert main([*args, "--labels-dir", str(tmp_path / "none"), "--steps", "2"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    counts = manifest["training_data"]["label_counts"]
    assert counts["silver"] == {} and counts["bias"] == {"B": 3, "C": 3}
    assert counts["route_a"]["A"] > 0  # the hand-written route-A set always joins training
    decision = load_classifier(out).classify(["Who?"])[0]
    assert sum(decision.probabilities.values()) == pytest.approx(1.0)
