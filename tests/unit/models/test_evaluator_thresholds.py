import json
from pathlib import Path

import pytest

from models.artifact import ArtifactError
from models.evaluator import Thresholds, crag_action, load_thresholds
from training.calibrate import choose_thresholds

T = Thresholds(upper=0.5, lower=-0.5, strip_filter=-0.2)


@pytest.mark.parametrize(
    ("scores", "action"),
    [
        ([0.9, -0.9], "Correct"),
        ([0.5], "Correct"),  # exactly at upper counts as Correct
        ([0.49, 0.1], "Ambiguous"),
        ([-0.5], "Ambiguous"),  # exactly at lower is not below it
        ([-0.51, -0.9], "Incorrect"),
        ([], "Incorrect"),
    ],
)
def test_threshold_to_action(scores: list[float], action: str) -> None:
    assert crag_action(scores, T) == action


def test_load_thresholds_reads_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(
        json.dumps({"thresholds": {"upper": 0.3, "lower": -0.7, "strip_filter": -0.4}})
    )
    assert load_thresholds(tmp_path) == Thresholds(0.3, -0.7, -0.4)


def test_load_thresholds_refuses_a_manifest_without_them(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{}")
    with pytest.raises(ArtifactError, match="no thresholds"):
        load_thresholds(tmp_path)
    with pytest.raises(ArtifactError, match="acrag train evaluator"):
        load_thresholds(tmp_path / "absent")


def test_choose_thresholds_meets_the_precision_criterion() -> None:
    # Retrievals with a relevant passage top out high, those without top out low.
    present = [([0.2 + 0.01 * i, -0.9], True) for i in range(50)]
    absent = [([-0.6 + 0.01 * i], False) for i in range(50)]
    chosen = choose_thresholds(present + absent, [0.1 * i for i in range(-5, 5)], precision=1.0)
    assert chosen.lower <= chosen.upper
    assert all(crag_action(s, chosen) != "Incorrect" for s, _ in present)
    assert all(crag_action(s, chosen) != "Correct" for s, _ in absent)
    assert chosen.upper == pytest.approx(-0.1)  # the smallest cut at which Correct is never wrong
    assert chosen.strip_filter <= -0.4  # keeps 95% of answer strips


def _artifact(tmp_path: Path, sha: str = "abc") -> Path:
    manifest = {
        "thresholds": {"upper": 0.97, "lower": -0.13, "strip_filter": -0.9},
        "weights_sha256": sha,
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    return tmp_path


def test_a_decision_for_these_weights_replaces_upper_and_lower(tmp_path: Path) -> None:
    folder = _artifact(tmp_path)
    decision = {"upper": 0.5, "lower": -0.5, "weights_sha256": "abc"}
    (folder / "decision.json").write_text(json.dumps(decision))
    assert load_thresholds(folder) == Thresholds(0.5, -0.5, -0.9)  # strip filter kept


def test_a_decision_made_for_other_weights_is_refused(tmp_path: Path) -> None:
    folder = _artifact(tmp_path, sha="new weights")
    decision = {"upper": 0.5, "lower": -0.5, "weights_sha256": "old weights"}
    (folder / "decision.json").write_text(json.dumps(decision))
    with pytest.raises(ArtifactError, match="other evaluator weights"):
        load_thresholds(folder)


def test_the_evaluator_does_not_rescore_a_pair_it_scored_recently() -> None:
    from models.evaluator import TrainedEvaluator

    seen: list[str] = []

    def logits(questions, passages):
        seen.extend(passages)
        return [float(len(p)) - 2.0 for p in passages]

    evaluator = TrainedEvaluator(logits, {})
    first = evaluator.score("q?", ["ab", "abc", "ab"])
    assert seen == ["ab", "abc"] and first[0] == first[2]
    again = evaluator.score("q?", ["abc", "abcd"])
    assert seen == ["ab", "abc", "abcd"] and again[0] == first[1]
    assert evaluator.score("other?", ["ab"]) == [first[0]] and seen[-1] == "ab"  # per question
    evaluator.MEMORY = 2
    evaluator.score("q?", ["x", "y", "z"])
    evaluator.score("q?", ["x"])
    assert seen[-1] == "x"  # forgotten once the memory is full
