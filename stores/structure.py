"""Structure-aware splitting of documentation: headings, option entries, tables, code.

A document becomes a list of `Block`s, each a unit never split across chunks (an option entry
with its description, a definition, a table, a code block, a paragraph) carrying the path of
headings above it. Markdown is parsed with markdown-it-py (CommonMark plus tables); HTML is
first rewritten to that Markdown with BeautifulSoup (headings, `<dl>`, `<table>`, `<pre>`
kept); plain text (`--help` output, rendered pages, PDF text) is read by indentation, after
page furniture is dropped and hyphenated line breaks are joined; in reStructuredText (read
as text) a title underlined with one repeated mark is a heading.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "CHUNKER_VERSION",
    "Block",
    "Format",
    "blocks_from_markdown",
    "blocks_from_text",
    "clean_rendered",
    "html_to_markdown",
]

CHUNKER_VERSION = "structure-1"
"""Bumped whenever file chunking changes; stored on chunks and on the collection."""

Format = Literal["text", "rst", "markdown", "passage"]
Kind = Literal["entry", "table", "code", "text"]


@dataclass(frozen=True)
class Block:
    """An unsplittable piece of a document under its heading path."""

    path: tuple[str, ...]
    text: str
    kind: Kind = "text"


# Running headers of rendered manual pages ("TAIL(1)   User Commands   TAIL(1)") and their
# footers ("GNU coreutils 9.4   April 2024   TAIL(1)"), page counters, form feeds.
_PAGE_NAME = r"[A-Za-z_][\w.+:-]*\(\w{1,4}\)"
_HEADER = re.compile(rf"^[ \t]*({_PAGE_NAME})[ \t]{{2,}}.*?[ \t]{{2,}}\1[ \t]*$", re.MULTILINE)
_FOOTER = re.compile(rf"^[ \t]*\S.*[ \t]{{3,}}{_PAGE_NAME}[ \t]*$", re.MULTILINE)
_PAGE_NUMBER = re.compile(
    r"^[ \t]*(?:-[ \t]*\d+[ \t]*-|Page[ \t]+\d+(?:[ \t]+of[ \t]+\d+)?)[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
_HYPHEN_BREAK = re.compile(r"([a-z]{2})-\n[ \t]*([a-z])")
_OPTION = re.compile(r"^-{1,2}[A-Za-z0-9?#@+]|^\+[A-Za-z0-9]")
_FAQ = re.compile(r"^\d{1,3}[.)]\s+\S.{0,150}\?$")
_BLANK_RUN = re.compile(r"\n{3,}")
_ADORNMENT = re.compile(r"^[ \t]*([=\-~^*#+])\1{2,}[ \t]*$")
"""A line of one repeated mark: a reStructuredText title's underline (or overline)."""


def clean_rendered(text: str) -> str:
    """Drop page furniture and join words hyphenated across a line break."""
    text = text.replace("\r\n", "\n").replace("\f", "\n")
    for pattern in (_HEADER, _FOOTER, _PAGE_NUMBER):
        text = pattern.sub("", text)
    text = _HYPHEN_BREAK.sub(r"\1\2", text)
    return _BLANK_RUN.sub("\n\n", text)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _is_heading(line: str, following: str | None) -> bool:
    """A flush-left short line in capitals, or ending with a colon before indented lines."""
    words = line.strip()
    if _indent(line) or not words or len(words) > 70 or _OPTION.match(words):
        return False
    letters = [c for c in words if c.isalpha()]
    if letters and all(c.isupper() for c in letters) and len(words.split()) <= 6:
        return True
    if _FAQ.match(words):
        return True
    short = len(words.split()) <= 5 and words[0].isupper()
    return short and words.endswith(":") and following is not None and _indent(following) > 0


def _underlined(lines: list[str]) -> set[int]:
    """Return the indexes of the lines an adornment underlines: a short flush-left title."""
    return {
        i
        for i, line in enumerate(lines[:-1])
        if _ADORNMENT.match(lines[i + 1])
        and line.strip()
        and not _indent(line)
        and len(line.strip()) <= 70
        and not _ADORNMENT.match(line)
        and len(lines[i + 1].strip()) >= len(line.strip()) // 2
    }


def _next_line(lines: list[str], start: int) -> str | None:
    return next((line for line in lines[start:] if line.strip()), None)


def _dedent(lines: list[str]) -> str:
    kept = [line.rstrip() for line in lines]
    while kept and not kept[-1]:
        kept.pop()
    margin = min((_indent(line) for line in kept if line), default=0)
    return "\n".join(line[margin:] for line in kept)


def _opens_entry(line: str, following: str | None) -> bool:
    """An option line, or a short term whose next line is indented further (a definition)."""
    if _OPTION.match(line.strip()):
        return True
    return (
        following is not None
        and len(line.strip()) <= 60
        and _indent(following) > _indent(line)
        and not line.rstrip().endswith((".", ","))
    )


def blocks_from_text(
    text: str, base: tuple[str, ...] = (), *, underlined_titles: bool = False
) -> list[Block]:
    """Split plain or rendered text into headed paragraphs and option or definition entries.

    With `underlined_titles` (reStructuredText), a short line over a line of one repeated
    mark is a heading and the mark line is dropped. Plain text is not read so: rendered info
    manuals underline their titles too, and reading them so changed no answer of the
    documentation sets' dev halves but one, for the worse (docs/stores.md).
    """
    path = base
    lines = clean_rendered(text).split("\n")
    titles = _underlined(lines) if underlined_titles else set()
    blocks: list[Block] = []
    current: list[str] = []
    entry_indent: int | None = None

    def close() -> None:
        nonlocal current, entry_indent
        if any(line.strip() for line in current):
            blocks.append(
                Block(path, _dedent(current), "text" if entry_indent is None else "entry")
            )
        current, entry_indent = [], None

    for i, line in enumerate(lines):
        following = _next_line(lines, i + 1)
        if not line.strip():
            if entry_indent is None or following is None or _indent(following) <= entry_indent:
                close()
            else:
                current.append("")
            continue
        if underlined_titles and _ADORNMENT.match(line):
            continue  # a title's underline or overline: the heading holds its words
        if i in titles or _is_heading(line, following):
            close()
            path = (*base, line.strip().rstrip(":"))
            continue
        inside = entry_indent is not None and _indent(line) > entry_indent
        if inside and _OPTION.match(line.strip()) and not current[-1].rstrip().endswith(","):
            inside = False  # a long-only option indented under the short ones (--help style)
        if not inside and _opens_entry(line, following):
            close()
            entry_indent = _indent(line)
        elif entry_indent is not None and not inside:
            close()
        current.append(line)
    close()
    return blocks


def _markdown_parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _top_blocks(tokens: list[Any], lines: list[str]) -> Iterator[tuple[Any, str]]:
    """Yield each top-level token (or list item) that opens a block, with its source lines."""
    for i, token in enumerate(tokens):
        if token.map is None or token.nesting == -1:
            continue
        top = token.level == 0
        item = token.type == "list_item_open" and token.level == 1
        if (top and token.type not in ("bullet_list_open", "ordered_list_open")) or item:
            if token.type == "heading_open":
                yield token, tokens[i + 1].content
            else:
                yield token, "\n".join(lines[token.map[0] : token.map[1]])


def _is_entry(paragraph: str) -> bool:
    """An option paragraph, or a term over an indented description (a rewritten `<dl>`)."""
    lines = paragraph.strip("\n").split("\n")
    return bool(_OPTION.match(lines[0].strip().strip("`"))) or (
        len(lines) > 1 and lines[1].startswith("    ")
    )


_MD_KIND: dict[str, Kind] = {"fence": "code", "code_block": "code", "table_open": "table"}


def blocks_from_markdown(text: str) -> list[Block]:
    """Split Markdown into blocks under their heading path (markdown-it-py's block map)."""
    lines = text.replace("\r\n", "\n").split("\n")
    heads: list[tuple[int, str]] = []
    blocks: list[Block] = []
    for token, source in _top_blocks(_markdown_parser().parse(text), lines):
        if token.type == "heading_open":
            level = int(token.tag[1:])
            heads = [(n, h) for n, h in heads if n < level] + [(level, source.strip())]
            continue
        if source.strip():
            path = tuple(h for _, h in heads)
            kind = _MD_KIND.get(token.type, "text")
            if token.type == "list_item_open" or (kind == "text" and _is_entry(source)):
                kind = "entry"
            blocks.append(Block(path, source.strip("\n"), kind))
    return blocks


_BLOCK_TAGS = frozenset(
    "p div section article main aside header footer nav blockquote figure form fieldset "
    "address details summary center".split()
)


def _inline(tag: Any) -> str:
    return re.sub(r" ([,.;:)])", r"\1", " ".join(tag.get_text(" ").split()))


def _table(tag: Any) -> str:
    rows = [
        [_inline(cell).replace("|", "\\|") for cell in row.find_all(["th", "td"])]
        for row in tag.find_all("tr")
    ]
    rows = [row for row in rows if row]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)


def _definitions(tag: Any) -> str:
    entries: list[str] = []
    for child in tag.find_all(["dt", "dd"], recursive=False) or tag.find_all(["dt", "dd"]):
        if child.name == "dt" or not entries:
            entries.append(_inline(child))
        else:
            entries[-1] += "\n    " + _inline(child)
    return "\n\n".join(entries)


def _text(node: Any) -> str:
    """Return a text node as inline Markdown: whitespace runs squeezed, edge spaces kept."""
    text = str(node)
    words = " ".join(text.split())
    lead = " " if text[:1].isspace() and words else ""
    return lead + words + (" " if text[-1:].isspace() else "")


def _block(tag: Any) -> str | None:
    """Return the Markdown of a tag rendered whole, or None for one whose children follow."""
    name = tag.name
    if re.fullmatch(r"h[1-6]", name):
        return f"\n\n{'#' * int(name[1])} {_inline(tag)}\n\n"
    if name == "pre":
        return "\n\n```\n" + tag.get_text().strip("\n") + "\n```\n\n"
    if name == "table":
        return "\n\n" + _table(tag) + "\n\n"
    if name == "dl":
        return "\n\n" + _definitions(tag) + "\n\n"
    if name in ("ul", "ol"):
        items = tag.find_all("li", recursive=False)
        return "\n\n" + "\n".join(f"- {_inline(li)}" for li in items) + "\n\n"
    if name == "br":
        return "\n"
    return None


def _convert(root: Any) -> Iterator[str]:
    """Yield the Markdown pieces of an element, depth first, with an explicit stack.

    Iterative so that pathologically deep markup (thousands of nested divs) cannot exhaust
    Python's recursion limit. Comments, doctypes and processing instructions are dropped.
    """
    from bs4 import NavigableString, Tag

    stack: list[Any] = list(reversed(list(root.children)))
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if type(node) is NavigableString:
                yield _text(node)
            elif not isinstance(node, NavigableString):
                yield node  # a separator pushed below
        elif isinstance(node, Tag):
            whole = _block(node)
            if whole is not None:
                yield whole
                continue
            children = list(reversed(list(node.children)))
            if node.name in _BLOCK_TAGS:
                stack.append("\n\n")
                stack.extend(children)
                yield "\n\n"
            else:
                stack.extend(children)


def html_to_markdown(body: Any) -> str:
    """Rewrite an HTML element (BeautifulSoup) as Markdown that keeps its structure."""
    lines, fenced = [], False
    for line in "".join(_convert(body)).split("\n"):
        if line.strip() == "```":
            fenced = not fenced
        keep = fenced or line.startswith("    ")
        lines.append(line.rstrip() if keep else line.strip())
    return _BLANK_RUN.sub("\n\n", "\n".join(lines)).strip()
