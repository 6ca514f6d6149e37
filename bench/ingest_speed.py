"""Ingest throughput (chunks/s) against raw sentence-transformers encoding of the same chunks.

.venv/bin/python -m bench.ingest_speed [--data ../shared/data] [--passages 1000]
"""

import argparse
import logging
import tempfile
import time
from pathlib import Path

from bench.stores_common import DEFAULT_DATA, HashEmbeddings, read_passages, write_jsonl
from models.embeddings import MiniLMEmbeddings
from stores.index import open_index
from stores.ingest import ingest
from stores.lexical import iter_records

__all__ = ["main"]


def _raw_rate(texts: list[str], embeddings: MiniLMEmbeddings) -> float:
    started = time.perf_counter()
    embeddings.model.encode(texts, batch_size=embeddings.batch_size, normalize_embeddings=True)
    return len(texts) / (time.perf_counter() - started)


def main() -> None:
    """Time one ingestion of N passages, raw encoding of its chunks, and the pipeline alone."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--passages", type=int, default=1000)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    rows = []
    for row in read_passages([args.data / "corpus" / "2wikimultihopqa.extra.jsonl"]):
        rows.append(row)
        if len(rows) == args.passages:
            break
    embeddings = MiniLMEmbeddings()
    embeddings.embed_documents(["warm up the model"] * 8)
    with tempfile.TemporaryDirectory() as tmp:
        source = write_jsonl(Path(tmp) / "passages.jsonl", rows)
        started = time.perf_counter()
        report = ingest([source], home=Path(tmp) / "home", progress=False, embeddings=embeddings)
        ingest_rate = report.added / (time.perf_counter() - started)
        records = list(iter_records(open_index(home=Path(tmp) / "home").collection))
        started = time.perf_counter()
        ingest([source], home=Path(tmp) / "hashed", progress=False, embeddings=HashEmbeddings())
        overhead = time.perf_counter() - started
    texts = [f"{r.metadata['title']}\n{r.text}" for r in records]
    raw_rate = _raw_rate(texts, embeddings)
    print(f"passages={len(rows)} chunks={report.added}")
    print(f"ingest: {ingest_rate:.1f} chunks/s (read, chunk, embed, Chroma upsert, BM25 rebuild)")
    print(f"raw encode: {raw_rate:.1f} chunks/s; ingest/raw = {ingest_rate / raw_rate:.1%}")
    share = overhead / (report.added / ingest_rate)
    print(f"pipeline without MiniLM (hash vectors): {overhead:.2f}s = {share:.1%} of the ingest")


if __name__ == "__main__":
    main()
