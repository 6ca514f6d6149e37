"""Packing structure blocks into chunks: whole entries, whole tables, one heading path each."""

from dataclasses import dataclass

from stores.chunking import CHARS_PER_TOKEN_CAP, TokenCounter, chunk_text, count_in_batches
from stores.structure import Block, Format, blocks_from_markdown, blocks_from_text

__all__ = ["DEFAULT_ENTRY_TOKENS", "Section", "section_title", "structured_chunks"]

DEFAULT_ENTRY_TOKENS = 64
"""A chunk of option or definition entries stops growing past this many tokens, so that it
embeds as those few entries rather than as "about this command"."""


@dataclass(frozen=True)
class Section:
    """One chunk's text with the heading path it sits under."""

    path: tuple[str, ...]
    text: str


def section_title(title: str, path: tuple[str, ...]) -> str:
    """Return `title > heading > subheading`, without repeating a heading equal to the title."""
    heads = [h for h in path if h]
    if heads and heads[0].strip().lower() == title.strip().lower():
        heads = heads[1:]
    return " > ".join([title, *heads])


def _blocks(text: str, fmt: Format) -> list[Block]:
    if fmt == "markdown":
        return blocks_from_markdown(text)
    return blocks_from_text(text, underlined_titles=fmt == "rst")


def _split_oversized(block: Block, limit: int, count: TokenCounter) -> list[Block]:
    """Cut a block longer than a chunk: code and lists by their own lines, then by sentences."""
    if block.kind != "entry":
        inner = blocks_from_text(block.text, block.path)
        if len(inner) > 1:
            return [
                piece
                for part, size in zip(inner, _count(inner, limit, count), strict=True)
                for piece in ([part] if size <= limit else _split_oversized(part, limit, count))
            ]
    pieces = chunk_text(block.text, chunk_tokens=limit, overlap=0, count_tokens=count)
    return [Block(block.path, piece, block.kind) for piece in pieces]


def _count(blocks: list[Block], limit: int, count: TokenCounter) -> list[int]:
    """Count each block's tokens; a block too long to be one chunk is not tokenized whole."""
    max_chars = limit * CHARS_PER_TOKEN_CAP
    short = [b.text for b in blocks if len(b.text) <= max_chars]
    sizes = iter(count_in_batches(short, count))
    return [next(sizes) if len(b.text) <= max_chars else limit + 1 for b in blocks]


def _sized(blocks: list[Block], limit: int, count: TokenCounter) -> list[tuple[Block, int]]:
    sized: list[tuple[Block, int]] = []
    for block, size in zip(blocks, _count(blocks, limit, count), strict=True):
        if size <= limit:
            sized.append((block, size))
            continue
        parts = _split_oversized(block, limit, count)
        sized.extend(zip(parts, count_in_batches([p.text for p in parts], count), strict=True))
    return sized


def structured_chunks(
    text: str,
    fmt: Format,
    *,
    chunk_tokens: int,
    count_tokens: TokenCounter,
    entry_tokens: int = DEFAULT_ENTRY_TOKENS,
) -> list[Section]:
    """Pack whole blocks of one heading path into chunks of at most `chunk_tokens` tokens.

    Chunks holding option or definition entries stop at `entry_tokens`; a block is split only
    when it alone is longer than a chunk.
    """
    sections: list[Section] = []
    current: list[Block] = []
    size = 0

    def flush() -> None:
        if current:
            text = current[0].text
            for before, block in zip(current, current[1:], strict=False):
                joint = "\n" if before.kind == block.kind == "entry" else "\n\n"
                text += joint + block.text
            sections.append(Section(current[0].path, text))

    chars, max_chars = 0, chunk_tokens * CHARS_PER_TOKEN_CAP
    for block, tokens in _sized(_blocks(text, fmt), chunk_tokens, count_tokens):
        entries = block.kind == "entry" or any(b.kind == "entry" for b in current)
        limit = min(entry_tokens, chunk_tokens) if entries else chunk_tokens
        full = size + tokens > limit or chars + len(block.text) > max_chars
        if current and (block.path != current[0].path or full):
            flush()
            current, size, chars = [], 0, 0
        current.append(block)
        size += tokens
        chars += len(block.text) + 2
    flush()
    return sections
