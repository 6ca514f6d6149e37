"""Ingest throughput (chunks/s) beside a plain float32 sentence-transformers encode, one run.

    .venv/bin/python -m bench.suites.ingest_speed [--files bench/datasets/docqa/docs] [--rounds 2]
    .venv/bin/python -m bench.suites.ingest_speed --passages 1000   # 2WikiMultihopQA passages

Each round times, back to back on the same machine, (1) a plain `SentenceTransformer.encode`
in float32 of the very texts the ingestion embeds (title and chunk, batch 64) and (2) a whole
`acrag ingest` into a fresh index (read, chunk, de-duplicate, embed in the CPU's default
precision, bf16 or int8; Chroma upsert,
BM25 rebuild), and reports the ratio of the two rates. Rounds alternate which side goes
first, so that a neighbour's load rising or falling during a round favours neither; the
median ratio is the figure to quote.
"""

import argparse
import logging
import resource
import statistics
import tempfile
import time
from pathlib import Path

from bench.harness.stores_common import DEFAULT_DATA, HashEmbeddings, read_passages, write_jsonl
from models.embeddings import MiniLMEmbeddings
from stores.index import open_index
from stores.ingest import ingest
from stores.lexical import iter_records

__all__ = ["main"]


def _raw_rate(texts: list[str]) -> float:
    """Texts/s of a bare float32 `SentenceTransformer.encode` (no wrapper, no store)."""
    model = MiniLMEmbeddings(precision="fp32").model
    started = time.perf_counter()
    model.encode(texts, batch_size=64, normalize_embeddings=True)
    return len(texts) / (time.perf_counter() - started)


def _encoder_rate(texts: list[str]) -> float:
    """Texts/s of the encoder ingestion uses here (this CPU's default precision), alone."""
    embeddings = MiniLMEmbeddings()
    started = time.perf_counter()
    embeddings.encode(texts)
    return len(texts) / (time.perf_counter() - started)


def _source(args: argparse.Namespace, folder: Path) -> Path:
    if args.files:
        return args.files
    rows = []
    for row in read_passages([args.data / "corpus" / "2wikimultihopqa.extra.jsonl"]):
        rows.append(row)
        if len(rows) == args.passages:
            break
    return write_jsonl(folder / "passages.jsonl", rows)


def _ingest(source: Path, home: Path, **options: object) -> tuple[float, int]:
    started = time.perf_counter()
    report = ingest([source], home=home, progress=False, **options)  # type: ignore[arg-type]
    return time.perf_counter() - started, report.added


def main() -> None:
    """Print one line per round and the median ingest/raw ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--passages", type=int, default=1000)
    parser.add_argument("--files", type=Path, help="a folder of documents instead of passages")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        source = _source(args, Path(tmp))
        seconds, added = _ingest(source, Path(tmp) / "warm")  # loads models, finds the texts
        records = list(iter_records(open_index(home=Path(tmp) / "warm").collection))
        texts = [f"{r.metadata['title']}\n{r.text}" for r in records]
        _raw_rate(texts[:64])
        _encoder_rate(texts[:64])
        fast = MiniLMEmbeddings().precision
        print(f"source={source} chunks={added} distinct texts={len(set(texts))}")  # noqa: T201
        columns = (
            "round",
            "raw fp32 texts/s",
            f"{fast} encoder texts/s",
            "ingest chunks/s",
            "ratio",
        )
        print("| " + " | ".join(columns) + " |")  # noqa: T201
        print("|---:|---:|---:|---:|---:|")  # noqa: T201
        ratios = []
        for round_ in range(1, args.rounds + 1):
            if round_ % 2:  # odd rounds time fp32 first, even ones last: a load that
                raw = _raw_rate(texts)  # rises or falls during a round favours neither side
            raw8 = _encoder_rate(texts)
            seconds, added = _ingest(source, Path(tmp) / f"round{round_}")
            if not round_ % 2:
                raw = _raw_rate(texts)
            rate = added / seconds
            ratios.append(rate / raw)
            print(
                f"| {round_} | {raw:.1f} | {raw8:.1f} | {rate:.1f} | {rate / raw:.2f}x |",
                flush=True,
            )  # noqa: E501, T201
        hashed, _ = _ingest(source, Path(tmp) / "hashed", embeddings=HashEmbeddings())
    print(f"median ingest / raw fp32 = {statistics.median(ratios):.2f}x")  # noqa: T201
    print(f"pipeline without MiniLM (hash vectors): {hashed:.2f}s for {added} chunks")  # noqa: T201
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process (both encoders, Chroma): {peak:.0f} MB")  # noqa: T201


if __name__ == "__main__":
    main()
