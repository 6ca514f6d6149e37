from pathlib import Path

import pytest

from stores.home import ENV_VAR, acrag_home, display_source


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


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("/data/home/uploads/notes.md", "uploads/notes.md"),
        ("/srv/team/docs/guide.md", "docs/guide.md"),
        ("/guide.md", "guide.md"),
        ("docs/guide.md", "docs/guide.md"),
        ("https://example.org/a/b", "https://example.org/a/b"),
    ],
)
def test_display_source_never_shows_an_absolute_path(source: str, shown: str) -> None:
    assert display_source(source, home=Path("/data/home")) == shown
