"""Split documentation text into entries: a head (an option, a term, a value) and its description.

A reader that sees a whole option list tends to answer the entry next to the right one;
splitting a strip into entries lets each head be offered with its own description only.
Entries are the ones ingestion already finds (`stores.structure.blocks_from_text`: a
`--help` line `-A, --after-context=NUM   print ...`, or a term alone on its line with the
description indented below, as info manuals write `‘--count’` or an exit status `2`), plus
the `HEAD ¶ description` runs of rendered HTML (`-u ¶ Force the stdout ...`). Text with none
of these shapes gives no entries.
"""

import re
from dataclasses import dataclass

from stores.structure import blocks_from_text

__all__ = ["Entry", "entry_pieces", "split_entries"]

_DESCRIPTION_WORDS = 24

_OPTION = r"--?[A-Za-z0-9?][\w-]*(?:[=\[][^\s,]*|[ ][A-Z][A-Z_-]*\b)?"
_OPTION_HEAD = re.compile(rf"^{_OPTION}(?:,[ ]{{1,2}}{_OPTION})*")
_QUOTES = "‘’'`"
_PILCROW = re.compile(r"(?:(?<=\s)|^)((?:--?|\+)?\w[\w.-]*(?: [a-z]\w*)?) ¶ ")


@dataclass(frozen=True)
class Entry:
    """One entry of a list: its head as written (`-A, --after-context=NUM`) and description."""

    head: str
    description: str


def _short(text: str) -> str:
    words = text.split()
    more = " ..." if len(words) > _DESCRIPTION_WORDS else ""
    return " ".join(words[:_DESCRIPTION_WORDS]) + more


def _entry(block: str) -> Entry:
    """Split an entry block into its head (options, or the term line) and its description."""
    first, _, rest = block.strip().partition("\n")
    match = _OPTION_HEAD.match(first)
    head = match.group(0) if match else first.strip()
    description = f"{first[len(head) :] if match else ''} {rest}"
    return Entry(head.strip(f" ,{_QUOTES}"), _short(description))


def _pilcrow_entries(text: str) -> list[Entry]:
    """Return the `HEAD ¶ description` entries of rendered HTML, in order."""
    marks = list(_PILCROW.finditer(text))
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return [Entry(m.group(1), _short(text[m.end() : e])) for m, e in zip(marks, ends, strict=False)]


def split_entries(text: str) -> list[Entry]:
    """Return the entries `text` lists (each head with its own description), or []."""
    if found := _pilcrow_entries(text):
        return found
    entries = [_entry(b.text) for b in blocks_from_text(text) if b.kind == "entry"]
    return [e for e in entries if e.head and e.description]


def entry_pieces(text: str) -> list[tuple[str, bool]]:
    """Return `text` cut into its entries (True) and the prose around them (False), in order.

    Unlike `split_entries` nothing is shortened or left out but headings (ingestion carries
    them in the chunk's heading path); text without entries gives [].
    """
    if marks := list(_PILCROW.finditer(text)):
        ends = [m.start() for m in marks[1:]] + [len(text)]
        pieces = [(text[: marks[0].start()], False)]
        pieces += [(text[m.start() : e], True) for m, e in zip(marks, ends, strict=True)]
    else:
        pieces = [(b.text, b.kind == "entry") for b in blocks_from_text(text)]
    if not any(entry for _, entry in pieces):
        return []
    return [(piece.strip(), entry) for piece, entry in pieces if piece.strip()]
