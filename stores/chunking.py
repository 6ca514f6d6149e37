"""Sentence-respecting, token-aware chunking with content-hash ids."""

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from models.text import split_sentences as split_text_sentences

__all__ = [
    "DEFAULT_CHUNK_TOKENS",
    "DEFAULT_OVERLAP",
    "Chunk",
    "TokenCounter",
    "char_windows",
    "chunk_text",
    "content_hash",
    "count_in_batches",
    "minilm_token_counter",
    "split_sentences",
    "whitespace_token_counter",
]

# MiniLM reads at most 256 word pieces; 200 leaves room for the title that is embedded too.
DEFAULT_CHUNK_TOKENS = 200
DEFAULT_OVERLAP = 40

TokenCounter = Callable[[Sequence[str]], list[int]]

CHARS_PER_TOKEN_CAP = 8
"""A text longer than `CHARS_PER_TOKEN_CAP` characters per allowed token is cut into windows
of that size before any tokenizer sees it, so memory never grows with one long line."""
_BATCH_CHARS = 1 << 18
"""Most characters handed to the tokenizer in one call (its encodings dwarf the text)."""


@dataclass(frozen=True)
class Chunk:
    """One indexed piece of a source, with everything needed to store and cite it."""

    id: str
    text: str
    source: str
    title: str
    position: int
    hash: str
    url: str | None = None
    section: str = ""
    chunker: str = ""

    def metadata(self) -> dict[str, str | int]:
        """Return the Chroma metadata of this chunk (scalars only)."""
        meta: dict[str, str | int] = {
            "id": self.id,
            "source": self.source,
            "title": self.title,
            "position": self.position,
            "hash": self.hash,
        }
        if self.url:
            meta["url"] = self.url
        if self.section:
            meta["section"] = self.section
        if self.chunker:
            meta["chunker"] = self.chunker
        return meta


def content_hash(*parts: str) -> str:
    """Return the sha256 hex digest of `parts` joined by a unit separator."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


def whitespace_token_counter(texts: Sequence[str]) -> list[int]:
    """Count whitespace-separated words: a dependency-free stand-in for a tokenizer."""
    return [len(text.split()) for text in texts]


@cache
def _minilm_tokenizer() -> Any:
    from transformers import AutoTokenizer

    from models.embeddings import minilm_path

    return AutoTokenizer.from_pretrained(str(minilm_path()), local_files_only=True)


def minilm_token_counter(texts: Sequence[str]) -> list[int]:
    """Count MiniLM word pieces of each text (without special tokens)."""
    if not texts:
        return []
    encoded = _minilm_tokenizer()(list(texts), add_special_tokens=False, verbose=False)
    return [len(ids) for ids in encoded["input_ids"]]


def char_windows(text: str, max_chars: int) -> list[str]:
    """Cut `text` into pieces of at most `max_chars`, at the last whitespace when there is one."""
    windows: list[str] = []
    start = 0
    while len(text) - start > max_chars:
        end = start + max_chars
        space = text.rfind(" ", start + max_chars // 2, end + 1)
        cut = space if space > start else end
        windows.append(text[start:cut].strip())
        start = cut
    windows.append(text[start:].strip())
    return [w for w in windows if w]


def count_in_batches(texts: Sequence[str], count: TokenCounter) -> list[int]:
    """Count tokens of `texts` a bounded batch at a time (same result as `count(texts)`)."""
    sizes: list[int] = []
    batch: list[str] = []
    chars = 0
    for text in texts:
        batch.append(text)
        chars += len(text)
        if chars >= _BATCH_CHARS:
            sizes += count(batch)
            batch, chars = [], 0
    return sizes + (count(batch) if batch else [])


def split_sentences(text: str) -> list[str]:
    """Split `text` into sentences, treating blank lines as hard breaks (`models.text`)."""
    return split_text_sentences(text, rule="chunks")


def _split_long(sentence: str, tokens: int, limit: int) -> list[str]:
    """Cut a sentence longer than `limit` tokens into word windows of about `limit` tokens."""
    words = sentence.split()
    per_word = max(tokens / max(len(words), 1), 1e-6)
    window = max(int(limit / per_word), 1)
    return [" ".join(words[i : i + window]) for i in range(0, len(words), window)]


def _pieces(text: str, limit: int, count: TokenCounter) -> list[tuple[str, int]]:
    max_chars = limit * CHARS_PER_TOKEN_CAP
    sentences = [
        window
        for sentence in split_sentences(text)
        for window in (
            char_windows(sentence, max_chars) if len(sentence) > max_chars else [sentence]
        )
    ]
    pieces: list[tuple[str, int]] = []
    for sentence, tokens in zip(sentences, count_in_batches(sentences, count), strict=True):
        if tokens <= limit:
            pieces.append((sentence, tokens))
            continue
        parts = _split_long(sentence, tokens, limit)
        pieces.extend(zip(parts, count(parts), strict=True))
    return pieces


def _overlap_tail(pieces: list[tuple[str, int]], overlap: int) -> list[tuple[str, int]]:
    """Return the trailing whole sentences of `pieces` that fit in `overlap` tokens."""
    tail: list[tuple[str, int]] = []
    size = 0
    for piece in reversed(pieces):
        if size + piece[1] > overlap:
            break
        tail.insert(0, piece)
        size += piece[1]
    return tail


def chunk_text(
    text: str,
    *,
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
    overlap: int = DEFAULT_OVERLAP,
    count_tokens: TokenCounter = whitespace_token_counter,
) -> list[str]:
    """Pack whole sentences into chunks of at most `chunk_tokens` tokens.

    Consecutive chunks share up to `overlap` tokens of whole trailing sentences. A sentence
    longer than a chunk is cut at word boundaries; one longer than `CHARS_PER_TOKEN_CAP`
    characters per token is first cut into windows of that size, before it is tokenized.
    """
    if chunk_tokens < 1 or not 0 <= overlap < chunk_tokens:
        raise ValueError("need chunk_tokens >= 1 and 0 <= overlap < chunk_tokens")
    chunks: list[str] = []
    current: list[tuple[str, int]] = []
    size = chars = 0
    max_chars = chunk_tokens * CHARS_PER_TOKEN_CAP  # a run of one-token "words" stays bounded
    for piece in _pieces(text, chunk_tokens, count_tokens):
        if current and (size + piece[1] > chunk_tokens or chars + len(piece[0]) > max_chars):
            chunks.append(" ".join(s for s, _ in current))
            current = _overlap_tail(current, overlap)
            size, chars = sum(n for _, n in current), sum(len(s) + 1 for s, _ in current)
            if size + piece[1] > chunk_tokens or chars + len(piece[0]) > max_chars:
                current, size, chars = [], 0, 0
        current.append(piece)
        size += piece[1]
        chars += len(piece[0]) + 1
    if current:
        chunks.append(" ".join(s for s, _ in current))
    return chunks
