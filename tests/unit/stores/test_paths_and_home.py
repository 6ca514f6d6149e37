"""Issue 18, point 8: ingestion stays inside the given tree; unusable homes are one clear error."""

import os
from pathlib import Path

import pytest

from models.errors import UserError
from stores.home import acrag_home
from stores.loaders import expand_paths


def test_a_folder_linking_to_the_root_is_refused(tmp_path: Path):
    (tmp_path / "root-link").symlink_to("/")
    found = list(expand_paths([tmp_path / "root-link"]))
    assert len(found) == 1 and "refusing to index /" in str(found[0][1])
    assert "refusing to index /proc" in str(list(expand_paths([Path("/proc")]))[0][1])


def test_links_out_of_the_tree_are_not_followed(tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("private")
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.txt").write_text("kept")
    (docs / "sub" / "b.md").write_text("kept too")
    (docs / "leak.txt").symlink_to(outside / "secret.txt")
    (docs / "inner.txt").symlink_to(docs / "a.txt")
    (docs / "outdir").symlink_to(outside, target_is_directory=True)
    found = {path.name: problem for path, problem in expand_paths([docs])}
    assert found["a.txt"] is None and found["b.md"] is None and found["inner.txt"] is None
    assert "symbolic link out of" in str(found["leak.txt"])
    assert "secret.txt" not in found  # the linked folder was not entered


def test_an_uncreatable_home_is_a_user_error(tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(UserError, match="cannot create the data directory"):
        acrag_home(blocker / "home")


def test_a_read_only_home_is_a_user_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Tests may run as root, which writes through any mode bits: stand in for the check.
    real_access = os.access
    monkeypatch.setattr(
        os,
        "access",
        lambda path, mode: False if Path(path) == tmp_path else real_access(path, mode),
    )
    with pytest.raises(UserError, match="is not writable"):
        acrag_home(tmp_path)


@pytest.mark.parametrize("target", ["/proc/self/environ", "/dev/zero", "/sys/kernel/mm"])
def test_a_named_file_linking_into_kernel_trees_is_refused(tmp_path: Path, target: str):
    link = tmp_path / "notes.txt"
    link.symlink_to(target)
    ((path, reason),) = expand_paths([link])
    assert path == link and reason is not None and "refusing to index" in reason


def test_a_new_home_is_private(tmp_path: Path):
    home = acrag_home(tmp_path / "fresh" / "home")
    assert home.stat().st_mode & 0o777 == 0o700
