"""Helpers shared by the store benchmarks: data paths, passages, timing summaries."""

import hashlib
import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

from langchain_core.embeddings import Embeddings

__all__ = [
    "DEFAULT_DATA",
    "HashEmbeddings",
    "percentile",
    "read_passages",
    "write_jsonl",
]

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def read_passages(paths: Sequence[Path]) -> Iterator[dict[str, str]]:
    """Yield unique {title, text} passages from QA files and {title, text} corpus files."""
    seen: set[tuple[str, str]] = set()
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                for passage in record.get("passages", [record]):
                    key = (passage["title"], passage["text"])
                    if key not in seen:
                        seen.add(key)
                        yield {"title": key[0], "text": key[1]}


def write_jsonl(path: Path, rows: Sequence[dict[str, str]]) -> Path:
    """Write `rows` as JSONL and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def percentile(values: Sequence[float], share: float) -> float:
    """Return the nearest-rank percentile (`share` in 0..1) of `values`."""
    ordered = sorted(values)
    return ordered[max(math.ceil(share * len(ordered)) - 1, 0)]


class HashEmbeddings(Embeddings):
    """Deterministic pseudo-random unit vectors: fills big indexes fast for latency runs only."""

    def __init__(self, dimension: int = 384) -> None:
        self.dimension = dimension

    def _vector(self, text: str) -> list[float]:
        import numpy as np

        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        row = np.random.default_rng(seed).standard_normal(self.dimension)
        return [float(x) for x in row / np.linalg.norm(row)]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Return one pseudo-random unit vector per text."""
        return [self._vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        """Return the pseudo-random unit vector of `text`."""
        return self._vector(text)
