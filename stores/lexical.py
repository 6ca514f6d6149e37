"""BM25 index (bm25s) persisted beside the vector store and rebuilt from it when stale.

Chroma is the source of truth. Ingestion marks the index dirty before writing to Chroma and
rebuilds it afterwards; a reader that finds the dirty mark, or a chunk count that differs
from Chroma's, rebuilds before searching. So a killed ingestion never leaves BM25 and the
vector store disagreeing for longer than the next open.

Rebuilds of one folder run one at a time (a file lock, so across threads and processes
alike), each writing into a staging folder of its own before the swap.
"""

import fcntl
import json
import logging
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s

__all__ = ["LexicalHit", "LexicalIndex", "Record", "iter_records"]

logger = logging.getLogger(__name__)
# bm25s sets its own logger to DEBUG; its per-index chatter is not useful to our users.
logging.getLogger("bm25s").setLevel(logging.WARNING)

_RECORDS = "records.jsonl"
_STAMP = "stamp.json"
_DIRTY = ".dirty"
_LOCK = ".lock"
_PAGE = 5000


@contextmanager
def _exclusive(folder: Path) -> Iterator[None]:
    """Hold the folder's rebuild lock (blocks other threads and processes until released)."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / _LOCK).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@dataclass(frozen=True)
class Record:
    """One chunk as the lexical index keeps it."""

    id: str
    text: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class LexicalHit:
    """A BM25 match with its score (higher is better)."""

    record: Record
    score: float


def _tokens(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


def _indexed_text(record: Record) -> str:
    title = str(record.metadata.get("title", ""))
    return f"{title}\n{record.text}" if title else record.text


def iter_records(collection: Any) -> Iterator[Record]:
    """Yield every chunk of a Chroma collection, page by page."""
    offset = 0
    while True:
        page = collection.get(include=["documents", "metadatas"], limit=_PAGE, offset=offset)
        for id_, text, meta in zip(page["ids"], page["documents"], page["metadatas"], strict=True):
            yield Record(id_, text or "", dict(meta or {}))
        if len(page["ids"]) < _PAGE:
            return
        offset += _PAGE


class LexicalIndex:
    """A BM25 index over one collection, stored in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.records: list[Record] = []
        self._bm25: bm25s.BM25 | None = None

    @property
    def stamp(self) -> dict[str, Any]:
        """Return what the saved index was built from (empty if there is none)."""
        try:
            return dict(json.loads((self.folder / _STAMP).read_text()))
        except (OSError, ValueError):
            return {}

    def mark_dirty(self) -> None:
        """Record that the vector store is about to change."""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / _DIRTY).touch()

    def is_fresh(self, count: int) -> bool:
        """Return True if the saved index matches a store of `count` chunks."""
        return not (self.folder / _DIRTY).exists() and self.stamp.get("count") == count

    def rebuild(self, collection: Any) -> None:
        """Rebuild from every chunk in `collection`, save, and clear the dirty mark.

        The whole rebuild holds the folder's lock, so concurrent ingestions (parallel
        uploads) each read the store and swap their index in turn.
        """
        with _exclusive(self.folder):
            self.build(list(iter_records(collection)))
            self._save_unlocked()
            (self.folder / _DIRTY).unlink(missing_ok=True)

    def build(self, records: list[Record]) -> None:
        """Index `records` in memory."""
        self.records = records
        self._bm25 = None
        if records:
            self._bm25 = bm25s.BM25()
            tokens = bm25s.tokenize(
                [_indexed_text(r) for r in records], stopwords="en", show_progress=False
            )
            self._bm25.index(tokens, show_progress=False)

    def save(self) -> None:
        """Write the index into a staging folder of its own, then swap it into place."""
        with _exclusive(self.folder):
            self._save_unlocked()

    def _save_unlocked(self) -> None:
        build = uuid.uuid4().hex
        partial = self.folder / f"index.partial-{build}"
        current, retired = self.folder / "index", self.folder / f"index.old-{build}"
        partial.mkdir(parents=True)
        try:
            if self._bm25 is not None:
                self._bm25.save(str(partial / "bm25"), show_progress=False)
            with (partial / _RECORDS).open("w", encoding="utf-8") as out:
                for r in self.records:
                    row = {"id": r.id, "text": r.text, "metadata": r.metadata}
                    out.write(json.dumps(row) + "\n")
            if current.exists():
                current.rename(retired)
            partial.rename(current)
            stamp = {"count": len(self.records), "build": build}
            (self.folder / _STAMP).write_text(json.dumps(stamp))
        finally:
            shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(retired, ignore_errors=True)

    def load(self) -> bool:
        """Load the saved index; return False if there is none."""
        folder = self.folder / "index"
        try:
            with (folder / _RECORDS).open(encoding="utf-8") as handle:
                rows = [json.loads(line) for line in handle]
            self.records = [Record(r["id"], r["text"], r["metadata"]) for r in rows]
            self._bm25 = (
                bm25s.BM25.load(str(folder / "bm25"), show_progress=False) if self.records else None
            )
        except (OSError, ValueError, KeyError) as error:
            logger.info("no usable BM25 index in %s (%s)", folder, error)
            return False
        return True

    def search(self, query: str, *, k: int) -> list[LexicalHit]:
        """Return up to `k` records with a positive BM25 score, best first."""
        if self._bm25 is None or not self.records or k < 1:
            return []
        tokens = _tokens([query])
        if not tokens[0]:
            return []
        found = self._bm25.retrieve(
            tokens, k=min(k, len(self.records)), show_progress=False, n_threads=1
        )
        hits = [
            LexicalHit(self.records[int(i)], float(s))
            for i, s in zip(found.documents[0], found.scores[0], strict=True)
        ]
        return [hit for hit in hits if hit.score > 0]
