import json

import pytest

from graphs import context
from graphs.context import Context, context_options
from graphs.validation import InvalidContextError, InvalidQuestionError, validate_question
from models.errors import UserError
from models.evaluator import ACTION_ARTIFACT_DIR
from tests.fakes import make_deps


def test_every_option_is_described():
    options = context_options()
    assert len(options) > 20
    assert all(description.strip() for _, _, description in options)


@pytest.mark.parametrize(
    "settings",
    [
        {"upper_threshold": -0.5, "lower_threshold": 0.5},
        {"upper_threshold": 1.5},
        {"strip_threshold": -2.0},
        {"top_k": 0},
        {"ircot_max_steps": 0},
        {"max_retries": -1},
        {"w_sup": -1.0},
    ],
)
def test_bad_settings_are_refused(settings):
    with pytest.raises(InvalidContextError):
        Context(**settings)


def test_thresholds_may_be_equal():
    assert Context(upper_threshold=0.1, lower_threshold=0.1).upper_threshold == 0.1


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("x" * 1_000_000, "limit"),
        ("what\x00is this", "control characters: U\\+0000"),
        ("bell\x07", "U\\+0007"),
        (42, "must be text"),
    ],
)
def test_bad_questions_are_refused(question, message):
    with pytest.raises(InvalidQuestionError, match=message) as caught:
        validate_question(question, max_chars=2000)
    assert isinstance(caught.value, UserError)


def test_good_question_is_stripped():
    assert validate_question("  Who wrote\tit?\n", max_chars=100) == "Who wrote\tit?"


def test_explicit_thresholds_beat_the_calibrated_ones():
    thresholds = Context(upper_threshold=0.3, strip_threshold=-0.2).crag_thresholds()
    assert thresholds.upper == 0.3
    assert thresholds.strip == -0.2
    assert thresholds.lower == context.HEURISTIC_THRESHOLDS.lower


def test_trained_evaluator_defaults_to_the_thresholds_in_its_manifest(monkeypatch):
    from models.evaluator import load_thresholds

    monkeypatch.undo()  # the real calibration lookup, not the unit-test stand-in
    recorded = load_thresholds()
    thresholds = Context(evaluator="trained").crag_thresholds()
    assert thresholds == (recorded.upper, recorded.lower, recorded.strip_filter)
    assert Context(evaluator="heuristic").crag_thresholds() == context.HEURISTIC_THRESHOLDS


def test_a_retrained_evaluator_without_its_own_decision_is_refused_not_guessed(
    monkeypatch, tmp_path
):
    import json

    from models import evaluator
    from models.artifact import ArtifactError

    monkeypatch.undo()  # the real calibration lookup, not the unit-test stand-in
    monkeypatch.setattr(evaluator, "ARTIFACT_DIR", tmp_path)
    lookup = context.calibrated_thresholds
    lookup.cache_clear()  # the lookup is cached per process: forget the committed artifact
    assert Context(evaluator="trained").crag_thresholds() == context.HEURISTIC_THRESHOLDS
    lookup.cache_clear()

    thresholds = {"upper": 0.89, "lower": -0.35, "strip_filter": -0.94}
    manifest = {"thresholds": thresholds, "weights_sha256": "new weights"}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    stale = {"upper": 0.5, "lower": -0.5, "weights_sha256": "old weights"}
    (tmp_path / "decision.json").write_text(json.dumps(stale))
    try:
        with pytest.raises(ArtifactError, match="other evaluator weights"):
            Context(evaluator="trained").crag_thresholds()
    finally:
        lookup.cache_clear()  # later tests read the committed artifact again


def test_an_action_evaluator_folder_must_exist(tmp_path):
    with pytest.raises(InvalidContextError, match="action_evaluator .* is not a folder"):
        Context(action_evaluator=str(tmp_path / "missing"))


def test_an_action_evaluators_own_thresholds_apply_unless_set(tmp_path):
    (tmp_path / "manifest.json").write_text(
        json.dumps({"thresholds": {"upper": 0.8, "lower": -0.2, "strip_filter": -0.9}})
    )
    shipped = Context().crag_thresholds()
    own_context = Context(action_evaluator=str(tmp_path))
    own = own_context.crag_thresholds(own_context.action_evaluator_dir())
    assert (own.upper, own.lower, own.strip) == (0.8, -0.2, shipped.strip)
    set_here = Context(action_evaluator=str(tmp_path), upper_threshold=0.7)
    chosen = set_here.crag_thresholds(set_here.action_evaluator_dir())
    assert (chosen.upper, chosen.lower) == (0.7, -0.2)


def test_the_bundled_action_evaluator_goes_with_the_trained_evaluator_only():
    assert Context().action_evaluator_dir() == ACTION_ARTIFACT_DIR
    bundled = Context().crag_thresholds(ACTION_ARTIFACT_DIR)
    assert (bundled.upper, bundled.lower) == (0.7, -0.5)  # its decision.json
    assert Context(evaluator="llm").action_evaluator_dir() is None
    assert Context(action_evaluator=None).action_evaluator_dir() is None
    # an injected evaluator is not the bundled one's partner: it decides CRAG's action alone
    assert make_deps().action_evaluator_dir(Context()) is None
    assert make_deps(evaluator=None).action_evaluator_dir(Context()) == ACTION_ARTIFACT_DIR
