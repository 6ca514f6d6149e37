"""The default reader's 22 installed parts assemble into the pinned, verified GGUF."""

from pathlib import Path

import pytest

from models import files

pytestmark = pytest.mark.integration


def test_installed_parts_assemble_to_the_pinned_sha256(tmp_path: Path) -> None:
    assert files.package_dir(files.QWEN15_PACKAGES[0]), "make setup installs the reader's parts"
    path = files.qwen15_path(tmp_path)
    assert path.stat().st_size == files.QWEN15_SIZE
    assert files.check_gguf(path) == path
    assert files.qwen15_path(tmp_path) == path  # verified once, then reused
