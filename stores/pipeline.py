"""Ingestion's two helpers: read files ahead in a thread, and embed each distinct text once."""

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import numpy as np
from langchain_core.embeddings import Embeddings

__all__ = ["DedupEmbedder", "read_ahead"]

T = TypeVar("T")
R = TypeVar("R")


def read_ahead(items: Iterable[T], work: Callable[[T], R], *, depth: int) -> Iterator[R]:
    """Yield `work(item)` for each item, computed by a thread up to `depth` items ahead.

    Reading and chunking (Python, parsers) then overlap with embedding (torch, which releases
    the GIL). An exception in `work` is raised here, in order; leaving the loop early stops
    the thread.
    """
    done: queue.Queue[tuple[R | None, BaseException | None, bool]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(entry: tuple[R | None, BaseException | None, bool]) -> None:
        while not stop.is_set():
            try:
                done.put(entry, timeout=0.5)
                return
            except queue.Full:
                continue

    def run() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                put((work(item), None, False))
            put((None, None, True))
        except BaseException as error:  # noqa: BLE001 - raised in the consumer's thread
            put((None, error, True))

    threading.Thread(target=run, name="ingest-reader", daemon=True).start()
    try:
        while True:
            result, error, last = done.get()
            if error is not None:
                raise error
            if last:
                return
            yield result  # type: ignore[misc]
    finally:
        stop.set()


class DedupEmbedder:
    """Embeds each distinct text once per run: repeated boilerplate and copies cost nothing."""

    MEMORY = 20_000
    """Vectors kept for de-duplication (float32, 384 numbers each: ~30 MB at most)."""

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings
        self.seen: dict[str, np.ndarray] = {}
        self.embedded = 0
        """Texts actually sent to the model."""

    def __call__(self, texts: list[str]) -> list[list[float]]:
        """Return one vector per text, embedding only those not seen before."""
        fresh = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if fresh:
            vectors = np.asarray(self.embeddings.embed_documents(fresh), dtype=np.float32)
            self.embedded += len(fresh)
            if len(self.seen) + len(fresh) > self.MEMORY:
                self.seen.clear()
            self.seen.update(zip(fresh, vectors, strict=True))
        return [self.seen[t].tolist() for t in texts]
