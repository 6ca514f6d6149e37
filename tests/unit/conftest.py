"""Unit-test set-up shared by every package's tests."""

import pytest

from graphs import context


@pytest.fixture(autouse=True)
def _fake_judges_use_the_heuristic_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake evaluators score on the heuristic evaluator's scale (hits 0.9, misses -0.9), so the
    default thresholds in unit tests are the heuristic ones, whatever evaluator is the default."""
    monkeypatch.setattr(context, "calibrated_thresholds", lambda kind: context.HEURISTIC_THRESHOLDS)
