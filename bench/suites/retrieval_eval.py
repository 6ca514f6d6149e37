"""Recall@5 and @10 of supporting passages for dense, BM25 and hybrid retrieval.

    .venv/bin/python -m bench.suites.retrieval_eval [--data ../shared/data]
        [--datasets hotpotqa,musique,2wikimultihopqa] [--work DIR]

For each dev file, the corpus is the union of its questions' passages (de-duplicated by title
and text), ingested with the default chunking; a supporting passage counts as found when one
of its chunks is retrieved. `--work` keeps the indexes for reruns (default: a temp folder).
"""

import argparse
import json
import logging
import tempfile
from pathlib import Path
from typing import Any

from bench.harness.stores_common import DEFAULT_DATA
from stores.ingest import ingest
from stores.retrieval import make_retriever

__all__ = ["main", "recall"]

MODES = ("dense", "bm25", "hybrid")


def _flat(text: str) -> str:
    return " ".join(text.split())


def recall(gold: list[tuple[str, str]], retrieved: list[tuple[str, str]]) -> float:
    """Return the share of `gold` (title, text) passages with a chunk among `retrieved`."""
    found = sum(
        any(title == t and _flat(chunk) in _flat(text) for t, chunk in retrieved)
        for title, text in gold
    )
    return found / len(gold)


def _evaluate(home: Path, questions: list[dict[str, Any]], mode: str) -> tuple[float, float]:
    retriever = make_retriever(home=home, mode=mode, k=10)  # type: ignore[arg-type]
    at5 = at10 = 0.0
    for q in questions:
        gold = [(p["title"], p["text"]) for p in q["passages"] if p.get("is_supporting")]
        docs = retriever.invoke(q["question"])
        hits = [(str(d.metadata["title"]), d.page_content) for d in docs]
        at5 += recall(gold, hits[:5])
        at10 += recall(gold, hits)
    return at5 / len(questions), at10 / len(questions)


def main() -> None:
    """Index each dev file and print a Markdown recall table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--datasets", default="hotpotqa,musique,2wikimultihopqa")
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        print("| dataset | questions | chunks | mode | Recall@5 | Recall@10 |")
        print("|---|---:|---:|---|---:|---:|")
        for name in args.datasets.split(","):
            path = args.data / "qa" / f"{name}.dev.jsonl"
            questions = [json.loads(line) for line in path.open(encoding="utf-8")]
            questions = [q for q in questions if any(p.get("is_supporting") for p in q["passages"])]
            report = ingest([path], home=work / name, progress=False)
            for mode in MODES:
                at5, at10 = _evaluate(work / name, questions, mode)
                print(
                    f"| {name} | {len(questions)} | {report.total_chunks} | {mode} "
                    f"| {at5:.3f} | {at10:.3f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
