"""The trained support judge's contract, with a fake cross-encoder: scores, levels, thresholds."""

import math

import pytest
import torch

from models.artifact import ArtifactError
from models.judges import EvidenceSupportChecker, SupportChecker
from models.support import (
    SupportThresholds,
    TrainedSupportJudge,
    evidence_windows,
    support_distribution,
    support_level,
)
from tests.fakes import AnswerInWindowLogits
from training.calibrate_support import choose_support_thresholds

CUTS = SupportThresholds(supported=0.5, unsupported=-0.3)
EVIDENCE = [
    "Paris is the capital of France. It lies on the Seine. It has many museums. "
    "The Louvre is the largest. Lyon is the third city."
]


def judge(thresholds: SupportThresholds | None = CUTS) -> TrainedSupportJudge:
    manifest = {"thresholds": thresholds.as_dict()} if thresholds else {}
    return TrainedSupportJudge(AnswerInWindowLogits(), manifest)


@pytest.mark.parametrize(
    ("score", "level"),
    [(0.9, "full"), (0.5, "full"), (0.49, "partial"), (-0.3, "partial"), (-0.31, "none")],
)
def test_thresholds_map_scores_to_levels(score: float, level: str) -> None:
    assert support_level(score, CUTS) == level
    found = support_distribution(score, CUTS)
    assert math.isclose(sum(found.values()), 1.0)
    assert max(found, key=lambda k: found[k]) == level


def test_reflects_is_sup_grows_with_the_score() -> None:
    grid = [i / 50 - 1 for i in range(101)]
    is_sup = [
        support_distribution(s, CUTS)["full"] + 0.5 * support_distribution(s, CUTS)["partial"]
        for s in grid
    ]
    assert all(b >= a for a, b in zip(is_sup, is_sup[1:], strict=False))
    assert is_sup[0] < 0.25 < is_sup[60] < 0.75 < is_sup[-1]


def test_windows_overlap_and_cover_every_sentence() -> None:
    windows = evidence_windows(EVIDENCE, sentences=3, stride=2)
    assert windows[0].startswith("Paris") and windows[-1].endswith("third city.")
    assert len(windows) == 2 and "The Louvre" in windows[0] + windows[1]
    assert evidence_windows(["One line only."]) == ["One line only."]
    assert evidence_windows(["", "  "]) == []


def test_the_score_is_the_best_window_and_batches_in_one_pass() -> None:
    trained = judge()
    assert isinstance(trained, SupportChecker)
    scores = trained.score_many(
        [("Capital?", "Paris", EVIDENCE), ("Third city?", "Lyon", EVIDENCE), ("?", "Rome", [])]
    )
    assert scores[0] == scores[1] == pytest.approx(2 * torch.sigmoid(torch.tensor(4.0)).item() - 1)
    assert scores[2] == -1.0
    assert trained.logits.calls == 1  # type: ignore[attr-defined]


def test_support_levels_follow_the_manifest_thresholds() -> None:
    trained = judge()
    supported = trained.support("Capital of France?", "Paris", EVIDENCE)
    invented = trained.support("Capital of France?", "Marseille", EVIDENCE)
    assert max(supported, key=lambda k: supported[k]) == "full"
    assert max(invented, key=lambda k: invented[k]) == "none"
    lenient = judge(SupportThresholds(supported=0.99, unsupported=-0.99))
    verdict = lenient.support("Capital of France?", "Marseille", EVIDENCE)
    assert max(verdict, key=lambda k: verdict[k]) == "partial"


def test_a_judge_without_thresholds_refuses_to_give_levels() -> None:
    trained = judge(None)
    assert trained.score("q", "Paris", EVIDENCE) > 0.9  # the raw score still works
    with pytest.raises(ArtifactError, match="no thresholds"):
        trained.support("q", "Paris", EVIDENCE)


def test_support_thresholds_bound_false_none_and_false_full() -> None:
    good = [0.1 * i for i in range(-2, 10)]  # supported pairs: -0.2 .. 0.9
    bad = [-0.9 + 0.1 * i for i in range(12)]  # unsupported pairs: -0.9 .. 0.2
    labels, scores = [1] * len(good) + [0] * len(bad), good + bad
    chosen = choose_support_thresholds(labels, scores, max_false_none=0.0, max_false_full=0.0)
    assert chosen.unsupported == pytest.approx(-0.2)  # no supported pair falls below it
    assert chosen.supported == pytest.approx(0.21)  # no unsupported pair reaches it
    assert all(support_level(s, chosen) != "none" for s in good)
    assert all(support_level(s, chosen) != "full" for s in bad)


def test_each_item_is_judged_alone_in_the_same_pass_as_the_whole() -> None:
    trained = judge()
    evidence = ["Paris is the capital of France.", "Lyon is the third city.", ""]
    found = trained.support_each("Capital?", "Paris", evidence)
    assert found.each == ["full", "none", "none"]
    assert found.levels == trained.support("Capital?", "Paris", evidence)
    assert trained.logits.calls == 2  # type: ignore[attr-defined]  # one pass per call
    assert isinstance(trained, EvidenceSupportChecker)
