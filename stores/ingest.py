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
from stores.index import (
    Index,
    open_index,
    recorded_embedder,
    stamp_chunker,
    stamp_embedder,
)
from stores.loaders import (
    DEFAULT_MAX_FILE_MB,
    LoadedSource,
    Passage,
    SkippedFile,
    expand_paths,
    load_source,
)
from stores.packing import section_title, structured_chunks
from stores.pipeline import DedupEmbedder, read_ahead
from stores.progress import IngestProgress
from stores.structure import CHUNKER_VERSION

__all__ = ["IngestReport", "chunk_source", "ingest", "remove_sources"]

logger = logging.getLogger(__name__)

EMBED_BATCH = 256
_LOOKUP_BATCH = 1000
_WINDOW = 4
"""Batches gathered before embedding, so that they can be sorted by length (less padding)."""
_READ_AHEAD = 8
"""Files read and chunked ahead of the embedder, in a thread beside it."""


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


def _texts(chunks: Sequence[Chunk]) -> list[str]:
    return [f"{c.title}\n{c.text}" for c in chunks]


def _length(chunk: Chunk) -> int:
    return len(chunk.title) + len(chunk.text)


def _upsert(index: Index, part: list[Chunk], embed: DedupEmbedder) -> None:
    index.collection.upsert(
        ids=[c.id for c in part],
        documents=[c.text for c in part],
        metadatas=[c.metadata() for c in part],
        embeddings=embed(_texts(part)),  # type: ignore[arg-type]
    )


@dataclass(frozen=True)
class _Options:
    chunk_tokens: int
    overlap: int
    count_tokens: TokenCounter
    max_file_mb: float


@dataclass
class _Read:
    """One file read and chunked (or the reason it was skipped)."""

    path: Path
    size: int
    loaded: LoadedSource | None = None
    chunks: list[Chunk] = field(default_factory=list)
    skipped: str | None = None


def _read_one(path: Path, problem: str | None, options: _Options) -> _Read:
    try:
        size = path.stat().st_size if problem is None else 0
    except OSError:
        size = 0
    try:
        if problem:
            raise SkippedFile(problem)
        loaded = load_source(path, max_file_mb=options.max_file_mb)
    except SkippedFile as reason:
        return _Read(path, size, skipped=str(reason))
    chunks = chunk_source(
        loaded,
        chunk_tokens=options.chunk_tokens,
        overlap=options.overlap,
        count_tokens=options.count_tokens,
    )
    return _Read(path, size, loaded, chunks)


class _Run:
    """One ingestion's writes: chunks queued, embedded by windows, stale ids gathered."""

    def __init__(self, index: Index, embed: DedupEmbedder, *, batch: int, progress: IngestProgress):
        self.index, self.embed, self.batch, self.progress = index, embed, batch, progress
        self.pending: list[Chunk] = []
        self.seen: set[str] = set()
        self.present: set[str] = set()
        self.stale: set[str] = set()
        self.added = 0
        self.dirty = False

    def add(self, read: _Read, report: IngestReport) -> None:
        """Queue a file's new chunks, note its stale ones, and embed when a window is full."""
        if read.loaded is None:
            raise ValueError("a skipped file has no chunks")
        ids = [c.id for c in read.chunks]
        self.present |= _existing(self.index, [i for i in ids if i not in self.seen])
        present = {i for i in ids if i in self.present}  # a file named twice counts twice
        report.unchanged += len(present)
        new = [c for c in read.chunks if c.id not in present and c.id not in self.seen]
        self.seen.update(ids)
        self.pending.extend(new)
        self.stale |= _source_ids(self.index, read.loaded.source) - set(ids)
        self.stale -= self.seen
        self.progress.read(size=read.size, new_chunks=len(new))
        if len(self.pending) >= self.batch * _WINDOW:
            self.flush()

    def flush(self) -> None:
        """Embed and store every queued chunk."""
        if not self.pending:
            return
        if not self.dirty:
            self.index.lexical.mark_dirty()
            self.dirty = True
        chunks, self.pending = sorted(self.pending, key=_length), []
        for start in range(0, len(chunks), self.batch):
            part = chunks[start : start + self.batch]
            _upsert(self.index, part, self.embed)
            self.added += len(part)
            self.progress.stored(len(part))


def _embeddings_for(index: Index) -> Embeddings:
    """Return the MiniLM precision that built `index` (this CPU's default for a new one)."""
    return MiniLMEmbeddings.from_name(recorded_embedder(index.collection) or "") or (
        MiniLMEmbeddings()
    )


def ingest(
    paths: Sequence[Path],
    *,
    home: Path,
    collection: str = "documents",
    chroma_url: str | None = None,
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
    overlap: int = DEFAULT_OVERLAP,
    progress: bool | None = None,
    max_file_mb: float = DEFAULT_MAX_FILE_MB,
    batch_size: int = EMBED_BATCH,
    embeddings: Embeddings | None = None,
    count_tokens: TokenCounter | None = None,
) -> IngestReport:
    """Index `paths` (files, folders, JSONL) into `collection` and keep BM25 in sync.

    Chunks are embedded and stored `batch_size` at a time; each stored batch survives a
    kill. `embeddings` and `count_tokens` default to MiniLM and its tokenizer. The progress
    bar is drawn on a terminal (`progress` None), always (True) or never (False).
    """
    if chunk_tokens < 1 or not 0 <= overlap < chunk_tokens:
        raise UserError("need chunk_tokens >= 1 and 0 <= overlap < chunk_tokens")
    started = time.perf_counter()
    index = open_index(
        home=home, collection=collection, chroma_url=chroma_url, embeddings=embeddings
    )
    embeddings = embeddings or _embeddings_for(index)
    report = IngestReport()
    options = _Options(chunk_tokens, overlap, count_tokens or minilm_token_counter, max_file_mb)
    files = list(expand_paths(paths))
    bar = IngestProgress(enabled=progress, files=len(files), total_bytes=_size(files))
    run = _Run(index, DedupEmbedder(embeddings), batch=max(batch_size, 1), progress=bar)
    try:
        for read in read_ahead(files, lambda f: _read_one(*f, options), depth=_READ_AHEAD):
            if read.skipped is not None or read.loaded is None:
                logger.warning("skipped %s: %s", read.path, read.skipped)
                report.skipped.append((str(read.path), str(read.skipped)))
                bar.read(size=read.size, new_chunks=0)
                continue
            report.files += 1
            report.notes.extend((read.loaded.source, note) for note in read.loaded.notes)
            run.add(read, report)
        bar.done_reading()
        run.flush()
    finally:
        bar.close()
    _finish(index, run, report, embeddings)
    report.seconds = time.perf_counter() - started
    return report


def _size(files: list[tuple[Path, str | None]]) -> int:
    total = 0
    for path, problem in files:
        try:
            total += path.stat().st_size if problem is None else 0
        except OSError:
            continue
    return total


def _finish(index: Index, run: _Run, report: IngestReport, embeddings: Embeddings) -> None:
    """Delete stale chunks, rebuild BM25 if anything changed, stamp chunker and embedder."""
    if run.dirty or run.stale or not index.lexical.is_fresh(index.collection.count()):
        index.lexical.mark_dirty()
        if run.stale:
            index.collection.delete(ids=sorted(run.stale))
        index.lexical.rebuild(index.collection)
    name = getattr(embeddings, "name", None) or type(embeddings).__name__
    for note in (stamp_chunker(index), stamp_embedder(index, str(name))):
        if note:
            report.notes.append(("index", note))
    report.added, report.removed = run.added, len(run.stale)
    report.total_chunks = index.collection.count()


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
