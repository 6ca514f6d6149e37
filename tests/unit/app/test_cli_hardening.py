"""Issue 18, point 8: the CLI refuses to crawl `/` and reports unusable homes in one line."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def _acrag(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("command", [["ingest", "README.md"], ["ask", "What is it?"]])
def test_an_uncreatable_home_is_one_error_line_with_exit_2(tmp_path: Path, command):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = _acrag("--home", str(blocker / "home"), *command)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and "Traceback" not in done.stderr
    assert errors[0].startswith("acrag: error: cannot create the data directory")


def test_ingest_refuses_a_link_to_the_root(tmp_path: Path):
    (tmp_path / "everything").symlink_to("/")
    done = _acrag(
        "--home", str(tmp_path / "home"), "ingest", "--no-progress", str(tmp_path / "everything")
    )
    assert done.returncode == 1
    assert "refusing to index /" in done.stdout and "0 file(s) read" in done.stdout
