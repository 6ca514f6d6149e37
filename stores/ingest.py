"""Idempotent ingestion: files and JSONL into Chroma and BM25, with a per-file report.

Chunk ids derive from content, so re-ingesting unchanged files embeds nothing, a changed file
gets its new chunks added and then its old ones deleted, and a killed run resumes where it
stopped (every stored batch is durable; the BM25 index is marked dirty until rebuilt).
"""

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from tqdm import tqdm

from models.embeddings import MiniLMEmbeddings
from models.errors import UserError
from stores.chunking import (
    DEFAULT_CHUNK_TOKENS,
    DEFAULT_OVERLAP,
    Chunk,
    TokenCounter,
    chunk_text,
    content_hash,
    minilm_token_counter,
)
from stores.index import Index, open_index, stamp_chunker
from stores.loaders import (
    DEFAULT_MAX_FILE_MB,
    LoadedSource,
    Passage,
    SkippedFile,
    expand_paths,
    load_source,
)
from stores.packing import section_title, structured_chunks
from stores.structure import CHUNKER_VERSION

__all__ = ["IngestReport", "chunk_source", "ingest", "remove_sources"]

logger = logging.getLogger(__name__)

EMBED_BATCH = 256
_LOOKUP_BATCH = 1000


@dataclass
class IngestReport:
    """What one ingestion run did."""

    files: int = 0
    added: int = 0
    unchanged: int = 0
    removed: int = 0
    total_chunks: int = 0
    seconds: float = 0.0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        """Return a one-line summary for people."""
        return (
            f"{self.files} file(s) read, {len(self.skipped)} skipped; chunks: {self.added} added, "
            f"{self.unchanged} unchanged, {self.removed} removed; {self.total_chunks} in the "
            f"index ({self.seconds:.1f}s)"
        )


def _pieces(
    passage: Passage, *, chunk_tokens: int, overlap: int, count_tokens: TokenCounter
) -> list[tuple[str, str, str]]:
    """Return (title, section, text) of each chunk of one passage."""
    if passage.fmt == "passage":
        texts = chunk_text(
            passage.text, chunk_tokens=chunk_tokens, overlap=overlap, count_tokens=count_tokens
        )
        return [(passage.title, "", text) for text in texts]
    sections = structured_chunks(
        passage.text, passage.fmt, chunk_tokens=chunk_tokens, count_tokens=count_tokens
    )
    return [(section_title(passage.title, s.path), " > ".join(s.path), s.text) for s in sections]


def chunk_source(
    loaded: LoadedSource, *, chunk_tokens: int, overlap: int, count_tokens: TokenCounter
) -> list[Chunk]:
    """Chunk every passage of a source; ids hash title+text (JSONL) or source+text (files).

    Files are split by their structure (stores/structure.py): a chunk's title carries its
    heading path, and its id the chunker version, so a new chunker replaces old chunks.
    """
    chunks: dict[str, Chunk] = {}
    for passage in loaded.passages:
        structured = passage.fmt != "passage"
        version = CHUNKER_VERSION if structured else ""
        for title, section, text in _pieces(
            passage, chunk_tokens=chunk_tokens, overlap=overlap, count_tokens=count_tokens
        ):
            key = passage.title if loaded.keyed_by_title else loaded.source
            chunk_id = content_hash(*([key, version, text] if structured else [key, text]))[:32]
            if chunk_id not in chunks:
                chunks[chunk_id] = Chunk(
                    chunk_id,
                    text,
                    loaded.source,
                    title,
                    len(chunks),
                    content_hash(text),
                    passage.url,
                    section,
                    version,
                )
    return list(chunks.values())


def _existing(index: Index, ids: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), _LOOKUP_BATCH):
        found.update(
            index.collection.get(ids=ids[start : start + _LOOKUP_BATCH], include=[])["ids"]
        )
    return found


def _source_ids(index: Index, source: str) -> set[str]:
    return set(index.collection.get(where={"source": source}, include=[])["ids"])


def _store(
    index: Index, chunks: list[Chunk], embeddings: Embeddings, *, batch: int, progress: bool
) -> None:
    with tqdm(total=len(chunks), unit="chunk", desc="embedding", disable=not progress) as bar:
        for start in range(0, len(chunks), batch):
            part = chunks[start : start + batch]
            vectors = embeddings.embed_documents([f"{c.title}\n{c.text}" for c in part])
            index.collection.upsert(
                ids=[c.id for c in part],
                documents=[c.text for c in part],
                metadatas=[c.metadata() for c in part],
                embeddings=vectors,  # type: ignore[arg-type]
            )
            bar.update(len(part))


@dataclass(frozen=True)
class _Options:
    chunk_tokens: int
    overlap: int
    count_tokens: TokenCounter
    max_file_mb: float


def _load(path: Path, problem: str | None, options: _Options) -> LoadedSource:
    if problem:
        raise SkippedFile(problem)
    return load_source(path, max_file_mb=options.max_file_mb)


def _plan(
    paths: Sequence[Path], index: Index, report: IngestReport, options: _Options
) -> tuple[list[Chunk], set[str]]:
    """Read and chunk every file; return the chunks to add and the stale ids to delete."""
    todo: dict[str, Chunk] = {}
    stale: set[str] = set()
    for path, problem in expand_paths(paths):
        try:
            loaded = _load(path, problem, options)
        except SkippedFile as reason:
            logger.warning("skipped %s: %s", path, reason)
            report.skipped.append((str(path), str(reason)))
            continue
        report.files += 1
        report.notes.extend((loaded.source, note) for note in loaded.notes)
        chunks = chunk_source(
            loaded,
            chunk_tokens=options.chunk_tokens,
            overlap=options.overlap,
            count_tokens=options.count_tokens,
        )
        present = _existing(index, [c.id for c in chunks])
        report.unchanged += len(present)
        todo.update((c.id, c) for c in chunks if c.id not in present and c.id not in todo)
        stale |= _source_ids(index, loaded.source) - {c.id for c in chunks}
    # Similar lengths batch together, so the encoder pads less (as sentence-transformers
    # does within one call).
    return sorted(todo.values(), key=lambda c: len(c.title) + len(c.text)), stale


def ingest(
    paths: Sequence[Path],
    *,
    home: Path,
    collection: str = "documents",
    chroma_url: str | None = None,
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
    overlap: int = DEFAULT_OVERLAP,
    progress: bool = True,
    max_file_mb: float = DEFAULT_MAX_FILE_MB,
    batch_size: int = EMBED_BATCH,
    embeddings: Embeddings | None = None,
    count_tokens: TokenCounter | None = None,
) -> IngestReport:
    """Index `paths` (files, folders, JSONL) into `collection` and keep BM25 in sync.

    Chunks are embedded and stored `batch_size` at a time; each stored batch survives a
    kill. `embeddings` and `count_tokens` default to MiniLM and its tokenizer.
    """
    if chunk_tokens < 1 or not 0 <= overlap < chunk_tokens:
        raise UserError("need chunk_tokens >= 1 and 0 <= overlap < chunk_tokens")
    started = time.perf_counter()
    embeddings = embeddings or MiniLMEmbeddings()
    index = open_index(
        home=home, collection=collection, chroma_url=chroma_url, embeddings=embeddings
    )
    report = IngestReport()
    options = _Options(chunk_tokens, overlap, count_tokens or minilm_token_counter, max_file_mb)
    todo, stale = _plan(paths, index, report, options)
    if todo or stale or not index.lexical.is_fresh(index.collection.count()):
        index.lexical.mark_dirty()
        _store(index, todo, embeddings, batch=max(batch_size, 1), progress=progress)
        if stale:
            index.collection.delete(ids=sorted(stale))
        index.lexical.rebuild(index.collection)
    old = stamp_chunker(index)
    if old:
        report.notes.append(("index", old))
    report.added, report.removed = len(todo), len(stale)
    report.total_chunks = index.collection.count()
    report.seconds = time.perf_counter() - started
    return report


def remove_sources(
    sources: Sequence[str],
    *,
    home: Path,
    collection: str = "documents",
    chroma_url: str | None = None,
) -> int:
    """Delete every chunk of `sources` (as given or as resolved paths); return how many."""
    index = open_index(home=home, collection=collection, chroma_url=chroma_url)
    names = sorted({*sources, *(str(Path(s).resolve()) for s in sources)})
    where: Any = {"source": {"$in": names}}
    ids = index.collection.get(where=where, include=[])["ids"]
    if ids:
        index.lexical.mark_dirty()
        index.collection.delete(ids=ids)
        index.lexical.rebuild(index.collection)
    return len(ids)
