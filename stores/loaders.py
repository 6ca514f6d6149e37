"""Reading sources into titled passages: text, Markdown, HTML, PDF, JSONL, man and Info pages.

Any of them may be gzip-compressed (`README.md.gz`, `/usr/share/man/man1/tar.1.gz`): the
suffix under `.gz` decides how the file is read. Man pages (roff source, section suffixes
`.1` to `.9`) are rendered to text by groff, as `man` itself renders them; Info manuals
(`/usr/share/info/grep.info.gz`) are read node by node. A package's own
documentation files, named by convention rather than suffix (`README`, `NEWS.gz`,
`changelog.Debian.gz`), are read as text.

Every problem with one file raises `SkippedFile` with a reason a user can act on; the caller
reports it and moves on to the next file.
"""

import gzip
import io
import json
import logging
import os
import re
import shutil
import stat
import subprocess
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stores.structure import Format, html_to_markdown

__all__ = [
    "DEFAULT_MAX_FILE_MB",
    "SUPPORTED_NAMES",
    "SUPPORTED_SUFFIXES",
    "LoadedSource",
    "Passage",
    "SkippedFile",
    "expand_paths",
    "is_supported",
    "load_source",
]

logger = logging.getLogger(__name__)

_FORMATS: dict[str, Format] = {
    ".rst": "rst",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "markdown",  # rewritten to Markdown first
    ".htm": "markdown",
    ".info": "rst",  # Info titles are underlined, as reStructuredText's are
}
"""How each suffix's text is split (`stores.structure`); others are plain text."""

_MAN = ".man"
"""A man page's roff source: `.man`, or a section suffix (`.1`, `.1p`, `.3ssl`, `.8`), which
`_reading_suffix` reports as `.man`."""
SUPPORTED_SUFFIXES = frozenset({".txt", ".pdf", ".jsonl", _MAN, *_FORMATS})
SUPPORTED_NAMES = (
    f"{' '.join(sorted(SUPPORTED_SUFFIXES))}, man pages (.1 to .9), README and NEWS files, "
    "and any of these gzip-compressed (.gz)"
)
"""What can be indexed, in words for a user."""
_MAN_SECTION = re.compile(r"\.[1-9][a-z]{0,8}")
_INFO_PART = re.compile(r"\.info-\d+")
"""A split Info manual's parts: `find.info-1`, `find.info-2` (`find.info` indexes them)."""
_INFO_COOKIE = re.compile(rb"\x00\x08\[[^\x00]*\x00\x08\]")
"""Info's in-text markers (`[index]`, `[image ...]`), between NUL-backspace pairs."""
_INFO_MENU = re.compile(r"^\* Menu:[ \t]*$", re.MULTILINE)
_INFO_LICENCE = re.compile(r"Node: *(?:Copying|[^,\n]*Licen[cs]e)\b", re.IGNORECASE)
_ROFF = re.compile(rb"^(?:\.TH|\.Dd|\.so|'\\\"|\.\\\")", re.MULTILINE)
"""A roff source's first requests: a title (`.TH`, mdoc's `.Dd`), a link, or a comment."""
_ROFF_SNIFF_LINES = 60
_DASHES = str.maketrans({"\u2010": "-", "\u2212": "-"})
"""Hyphen and minus as groff may typeset an option's dash: options are typed with "-"."""
_RENDER_SECONDS = 30
_DOC_NAMES = frozenset(
    {"readme", "news", "changes", "changelog", "install", "faq", "todo", "hacking", "bugs"}
)
"""Names that make a file documentation whatever follows the first dot (`README.Debian`).
Licences (`COPYING`, `copyright`) are left out: a folder of packages holds one in each, and
their text would answer questions about anything."""
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


def _unzipped_name(path: Path) -> str:
    """Return the file's name without a final `.gz` (any case)."""
    return path.name[:-3] if path.name.lower().endswith(".gz") else path.name


def _reading_suffix(path: Path) -> str:
    """Return the suffix that decides how `path` is read, in lower case.

    It is the one under a final `.gz`, `.man` for a man page's section (`tar.1.gz`), and
    `.txt` for a documentation file named by convention (`README`, `NEWS.Debian.gz`).
    """
    name = _unzipped_name(path).lower()
    suffix = Path(name).suffix
    if _MAN_SECTION.fullmatch(suffix):
        return _MAN
    if _INFO_PART.fullmatch(suffix):
        return ".info"
    if suffix not in SUPPORTED_SUFFIXES and _doc_file(path):
        return ".txt"
    return suffix


def _doc_file(path: Path) -> bool:
    """Tell whether `path` is a documentation file named by convention (`NEWS.gz`)."""
    return path.name.split(".")[0].lower() in _DOC_NAMES


def is_supported(path: Path) -> bool:
    """Tell whether `path`'s name is of a kind that can be indexed."""
    return _reading_suffix(path) in SUPPORTED_SUFFIXES


def _walk(folder: Path, root: Path) -> Iterator[tuple[Path, str | None]]:
    errors: list[OSError] = []
    for parent, dirs, files in os.walk(folder, onerror=errors.append):  # links not followed
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(parent) / name
            if name.startswith(".") or not is_supported(path):
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


def _gunzip(data: bytes, max_mb: float) -> bytes:
    """Return `data` decompressed, refusing more than `max_mb` of output (a gzip bomb)."""
    limit = int(max_mb * 1024 * 1024)
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            out = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise SkippedFile(f"corrupt gzip file ({error})") from error
    if len(out) > limit:
        raise SkippedFile(f"over the {max_mb:g} MB limit per file once decompressed")
    if not out.strip():
        raise SkippedFile("empty file")
    return out


def _man(data: bytes) -> str:
    """Render a man page's roff source to text with groff, as `man` does (no bold, no colour)."""
    if not _is_roff(data):
        raise SkippedFile("named like a man page but not roff source (no .TH or .Dd request)")
    if (link := re.match(rb"\.so\s+(\S+)\s*$", data.strip())) is not None:
        target = link.group(1).decode(errors="replace")
        raise SkippedFile(f"a link to the man page {target}; that page is indexed instead")
    groff = shutil.which("groff")
    if groff is None:
        raise SkippedFile("man pages are rendered with groff, which is not installed (groff-base)")
    # -k: any input encoding; -t: tables; -P-cbou: no bold, underline or colour; no hyphenation;
    # and lines not justified (".ad l"), so words keep single spaces between them
    command = [groff, "-k", "-t", "-mandoc", "-Tutf8", "-P-cbou", "-rLL=78n", "-rHY=0"]
    try:
        done = subprocess.run(  # noqa: S603 - a fixed command; the page is only its input
            command, input=b".ad l\n" + data, capture_output=True, timeout=_RENDER_SECONDS
        )
    except subprocess.TimeoutExpired as error:
        raise SkippedFile(f"groff did not render this man page in {_RENDER_SECONDS} s") from error
    text = done.stdout.decode("utf-8", errors="replace")
    said = done.stderr.decode(errors="replace").strip().splitlines()
    missing = [line for line in said if "can't open" in line]  # a link or include not found
    if done.returncode != 0 or not text.strip() or missing:
        why = (missing or said or ["no output"])[0]
        raise SkippedFile(f"groff could not render this man page: {why}")
    return text.translate(_DASHES)


def _is_roff(data: bytes) -> bool:
    """Tell whether `data` begins like roff source."""
    head = b"\n".join(data.lstrip().splitlines()[:_ROFF_SNIFF_LINES])
    return _ROFF.search(head) is not None


def _info(text: str) -> str:
    """Return an Info file's nodes as text, in order, without what only navigates.

    Each node's header line (`File: grep.info,  Node: Usage,  Next: ...`) and its menu of
    links are dropped, as are the tag table, the file's preamble and licence nodes (a
    manual's copy of the GFDL answers nothing about the tool). Its underlined titles stay,
    and give the chunks their heading path.
    """
    nodes = []
    for part in text.split("\x1f")[1:]:  # before the first separator: the preamble
        header, _, body = part.lstrip("\n").partition("\n")
        if header.startswith("File:") and not _INFO_LICENCE.search(header):
            nodes.append(_INFO_MENU.split(body)[0].strip("\n"))
    if not any(node.strip() for node in nodes):
        raise SkippedFile(
            "no Info nodes: a split manual's index of its parts (the parts are read), "
            "or not an Info manual"
        )
    return "\n\n".join(nodes)


def _man_title(path: Path) -> str:
    """Return a man page's title as people write it: `tar(1)` for `tar.1.gz`."""
    stem, _, section = _unzipped_name(path).rpartition(".")
    return f"{stem}({section})" if _MAN_SECTION.fullmatch(f".{section}") else stem


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
    suffix = _reading_suffix(path)
    if suffix not in SUPPORTED_SUFFIXES:
        raise SkippedFile(f"unsupported file type {suffix or '(none)'!r}")
    data = _read_bytes(path, max_file_mb)
    if _unzipped_name(path) != path.name:
        data = _gunzip(data, max_file_mb)
    if suffix == _MAN and _doc_file(path) and not _is_roff(data):
        suffix = ".txt"  # `changelog.1.gz`: an older changelog (`install.1.gz` is a man page)
    source, stem = str(path.resolve()), Path(_unzipped_name(path)).stem
    try:  # the source name is hashed and stored as UTF-8 metadata
        source.encode("utf-8")
    except UnicodeEncodeError as error:
        raise SkippedFile("the file name is not valid UTF-8; rename the file") from error
    notes: list[str] = []
    fmt = _FORMATS.get(suffix, "text")
    if suffix == ".pdf":
        title, text = _pdf(path, data, stem)
    elif suffix == _MAN:
        title, text = _man_title(path), _man(data)
    elif suffix == ".info":
        text = _decode(_INFO_COOKIE.sub(b"", data), notes)  # cookies hold NUL bytes
        title, text = f"{stem} (info)", _info(text)
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
            if _doc_file(path) and title == stem:  # "README" says nothing; its folder does
                title = f"{path.parent.name}/{_unzipped_name(path)}"
    if not text.strip():
        raise SkippedFile("no extractable text")
    return LoadedSource(source, [Passage(title, text, fmt=fmt)], notes)
