"""Reading sources into titled passages: text, Markdown, HTML, PDF and JSONL files.

Every problem with one file raises `SkippedFile` with a reason a user can act on; the caller
reports it and moves on to the next file.
"""

import json
import logging
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stores.structure import Format, html_to_markdown

__all__ = [
    "DEFAULT_MAX_FILE_MB",
    "SUPPORTED_SUFFIXES",
    "LoadedSource",
    "Passage",
    "SkippedFile",
    "expand_paths",
    "load_source",
]

logger = logging.getLogger(__name__)

_FORMATS: dict[str, Format] = {
    ".rst": "rst",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "markdown",  # rewritten to Markdown first
    ".htm": "markdown",
}
"""How each suffix's text is split (`stores.structure`); others are plain text."""

SUPPORTED_SUFFIXES = frozenset({".txt", ".pdf", ".jsonl", *_FORMATS})
DEFAULT_MAX_FILE_MB = 20.0
_SNIFF_BYTES = 8192
_SYSTEM_ROOTS = frozenset(Path(p) for p in ("/", "/proc", "/sys", "/dev", "/run"))
"""Folders never walked: the whole file system, and kernel or device trees that never end."""


class SkippedFile(Exception):
    """A file that cannot be indexed; the message says why."""


@dataclass(frozen=True)
class Passage:
    """A titled piece of text: a whole document, or one JSONL passage."""

    title: str
    text: str
    url: str | None = None
    fmt: Format = "passage"
    """How to split it: `markdown` or `text` by structure (stores/structure.py), or `passage`
    (JSONL) by sentences only."""


@dataclass
class LoadedSource:
    """The passages read from one source file, with notes about anything odd."""

    source: str
    passages: list[Passage]
    notes: list[str] = field(default_factory=list)
    keyed_by_title: bool = False


def expand_paths(paths: Sequence[Path]) -> Iterator[tuple[Path, str | None]]:
    """Yield each file to ingest, with an error message instead for missing paths.

    Folders are walked recursively; hidden entries and unsupported suffixes inside folders
    are ignored, while a file named explicitly is always yielded (and rejected later if
    its type is unsupported). Symbolic links inside a folder are not followed out of it:
    linked folders are not entered, and a linked file outside the folder is reported. A
    folder that is (or links to) `/` or a system tree such as `/proc` is refused.
    """
    for path in paths:
        if path.is_dir():
            root = path.resolve()
            if root in _SYSTEM_ROOTS or _system_file(root):
                yield path, f"refusing to index {root}: give the folder that holds your documents"
                continue
            yield from _walk(path, root)
        elif path.exists():
            yield path, _system_file(path)
        else:
            yield path, "no such file or folder"


_KERNEL_TREES = tuple(Path(p) for p in ("/proc", "/sys", "/dev"))


def _system_file(path: Path) -> str | None:
    """Return why a named file is refused: it is, or links to, a kernel or device file."""
    target = path.resolve()
    if any(target.is_relative_to(tree) for tree in _KERNEL_TREES):
        return f"refusing to index {target.parent}/...: a kernel or device file, not a document"
    return None


def _outside(path: Path, root: Path) -> bool:
    """Return whether `path` is a link leading out of `root`.

    A looping or dangling link counts as inside: reading it fails later with its own reason.
    """
    if not path.is_symlink():
        return False
    try:
        target = path.resolve(strict=True)
    except (RuntimeError, OSError):  # a loop, or a link to nothing
        return False
    return not target.is_relative_to(root)


def _walk(folder: Path, root: Path) -> Iterator[tuple[Path, str | None]]:
    errors: list[OSError] = []
    for parent, dirs, files in os.walk(folder, onerror=errors.append):  # links not followed
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(parent) / name
            if name.startswith(".") or path.suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            if _outside(path, root):
                yield path, f"a symbolic link out of {folder}; not followed"
            else:
                yield path, None
    for error in errors:
        yield Path(error.filename or folder), f"cannot read folder: {error.strerror}"


def _read_bytes(path: Path, max_mb: float) -> bytes:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
            raise SkippedFile("not a regular file")
        size = info.st_size
        if size > max_mb * 1024 * 1024:
            raise SkippedFile(f"{size / 1048576:.0f} MB is over the {max_mb:g} MB limit per file")
        data = path.read_bytes()
    except OSError as error:
        raise SkippedFile(f"cannot read: {error.strerror or error}") from error
    if not data.strip():
        raise SkippedFile("empty file")
    return data


def _decode(data: bytes, notes: list[str]) -> str:
    if b"\x00" in data[:_SNIFF_BYTES]:
        raise SkippedFile("binary content, not text (contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            raise SkippedFile(
                f"not UTF-8 text (invalid byte at offset {error.start}); convert it to UTF-8"
            ) from error
        notes.append("not UTF-8; read as Windows-1252")
        return text


def _title_from_markdown(text: str, default: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip() or default
    return default


_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def _hidden(tag: Any) -> bool:
    """Tell whether an element is hidden from readers (a favourite place for injections)."""
    style = tag.get("style") or ""
    return (
        tag.has_attr("hidden")
        or str(tag.get("aria-hidden", "")).lower() == "true"
        or bool(_HIDDEN_STYLE.search(style if isinstance(style, str) else " ".join(style)))
    )


def _html(text: str, default: str) -> tuple[str, str]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    title = soup.title.get_text(strip=True) if soup.title else ""
    for tag in [*soup(["script", "style", "noscript", "template"]), *soup.find_all(_hidden)]:
        if not tag.decomposed:
            tag.decompose()
    body = soup.body or soup
    return title or default, html_to_markdown(body)


def _pdf(path: Path, data: bytes, default: str) -> tuple[str, str]:
    import io

    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise SkippedFile("encrypted PDF (needs a password)")
        pages = [page.extract_text() or "" for page in reader.pages]
        title = (reader.metadata.title if reader.metadata else None) or default
    except SkippedFile:
        raise
    except Exception as error:  # pypdf raises many types for broken files
        raise SkippedFile(f"corrupt or unreadable PDF ({type(error).__name__}: {error})") from error
    return str(title), "\n\n".join(pages)


def _jsonl(text: str, notes: list[str]) -> list[Passage]:
    passages: dict[tuple[str, str], Passage] = {}
    bad = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            items = record["passages"] if "passages" in record else [record]
            for item in items:
                passage = Passage(str(item["title"]), str(item["text"]), item.get("url"))
                passages.setdefault((passage.title, passage.text), passage)
        except (ValueError, KeyError, TypeError):
            bad += 1
    if bad:
        notes.append(f"{bad} malformed JSONL line(s) skipped")
    return list(passages.values())


def load_source(path: Path, *, max_file_mb: float = DEFAULT_MAX_FILE_MB) -> LoadedSource:
    """Read `path` into passages, raising `SkippedFile` with the reason if it cannot be used."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise SkippedFile(f"unsupported file type {suffix or '(none)'!r}")
    data = _read_bytes(path, max_file_mb)
    source, stem = str(path.resolve()), path.stem
    try:  # the source name is hashed and stored as UTF-8 metadata
        source.encode("utf-8")
    except UnicodeEncodeError as error:
        raise SkippedFile("the file name is not valid UTF-8; rename the file") from error
    notes: list[str] = []
    fmt = _FORMATS.get(suffix, "text")
    if suffix == ".pdf":
        title, text = _pdf(path, data, stem)
    else:
        text = _decode(data, notes)
        if suffix == ".jsonl":
            passages = _jsonl(text, notes)
            if not passages:
                raise SkippedFile("no passages with 'title' and 'text' in this JSONL file")
            return LoadedSource(source, passages, notes, keyed_by_title=True)
        if suffix in {".html", ".htm"}:
            title, text = _html(text, stem)
        else:
            title = stem if suffix in {".txt", ".rst"} else _title_from_markdown(text, stem)
    if not text.strip():
        raise SkippedFile("no extractable text")
    return LoadedSource(source, [Passage(title, text, fmt=fmt)], notes)
