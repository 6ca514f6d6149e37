"""Retrieval latency p50/p95 per mode at growing corpus sizes.

    .venv/bin/python -m bench.suites.retrieval_latency [--data ../shared/data] [--sizes
    1000,10000,30000]
        [--vectors minilm|hash] [--queries 200]

The corpus is every unique passage of the QA files plus corpus/2wikimultihopqa.extra.jsonl
(about 21k chunks: a size above that uses all of them). `--vectors hash` fills the index with
pseudo-random unit vectors so that large sizes build in minutes; queries are always embedded
by MiniLM, so the timing includes the real query encoder.
"""

import argparse
import json
import logging
import random
import tempfile
import time
from pathlib import Path

from bench.harness.stores_common import (
    DEFAULT_DATA,
    HashEmbeddings,
    percentile,
    read_passages,
    write_jsonl,
)
from models.embeddings import MiniLMEmbeddings
from stores.ingest import ingest
from stores.retrieval import make_retriever

__all__ = ["main"]

MODES = ("dense", "bm25", "hybrid")


def _questions(data: Path, count: int) -> list[str]:
    questions = []
    for path in sorted((data / "qa").glob("*.dev.jsonl")):
        questions += [json.loads(line)["question"] for line in path.open(encoding="utf-8")]
    return random.Random(0).sample(questions, count)


def _time(home: Path, mode: str, questions: list[str]) -> tuple[float, float]:
    retriever = make_retriever(home=home, mode=mode, k=10)  # type: ignore[arg-type]
    for question in questions[:5]:
        retriever.invoke(question)
    times = []
    for question in questions:
        started = time.perf_counter()
        retriever.invoke(question)
        times.append((time.perf_counter() - started) * 1000)
    return percentile(times, 0.5), percentile(times, 0.95)


def main() -> None:
    """Grow one index size by size and time every mode at each size."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sizes", default="1000,10000,30000")
    parser.add_argument("--vectors", choices=("minilm", "hash"), default="hash")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    files = sorted((args.data / "qa").glob("*.jsonl")) + [
        args.data / "corpus" / "2wikimultihopqa.extra.jsonl"
    ]
    passages = list(read_passages(files))
    questions = _questions(args.data, args.queries)
    embeddings = HashEmbeddings() if args.vectors == "hash" else MiniLMEmbeddings()
    print(f"| chunks | mode | p50 ms | p95 ms |  (vectors: {args.vectors})")
    print("|---:|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        for size in (int(s) for s in args.sizes.split(",")):
            source = write_jsonl(Path(tmp) / f"first{size}.jsonl", passages[:size])
            report = ingest([source], home=home, progress=False, embeddings=embeddings)
            for mode in MODES:
                p50, p95 = _time(home, mode, questions)
                print(f"| {report.total_chunks} | {mode} | {p50:.1f} | {p95:.1f} |", flush=True)


if __name__ == "__main__":
    main()
