from pathlib import Path

import pytest

from stores.home import ENV_VAR, acrag_home


def test_override_beats_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "from-env"))
    assert acrag_home(tmp_path / "from-flag") == (tmp_path / "from-flag").resolve()
    assert (tmp_path / "from-flag").is_dir()


def test_environment_beats_platform_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env-home"))
    assert acrag_home() == (tmp_path / "env-home").resolve()


def test_platform_default_without_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_VAR)
    monkeypatch.setattr("platformdirs.user_data_dir", lambda name: str(tmp_path / "data" / name))
    assert acrag_home() == (tmp_path / "data" / "acrag").resolve()
