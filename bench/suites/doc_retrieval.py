"""Recall@k on a documentation set: is the gold passage, or an answer token, in the top k?

    .venv/bin/python -m bench.suites.doc_retrieval --set bench/datasets/usrdoc [--split dev] [--k 4]
        [--work DIR] [--out FILE.json]

The set's `docs/` folder is ingested as a user would (`acrag ingest`, default chunking) into
`--work` (a temp folder by default), then each answerable question of the chosen split is
sent to the hybrid retriever as asked. No LLM runs. A question counts as found by passage when
one retrieved chunk holds at least 80% of the words of one of its gold passages, and by token
when an answer alias occurs (case-insensitive) in a retrieved chunk. Run it with another
checkout's interpreter (its `.venv/bin/python`) to measure that checkout's chunker.
"""

import argparse
import json
import logging
import re
import tempfile
from pathlib import Path
from typing import Any

from stores.ingest import ingest
from stores.retrieval import make_retriever

__all__ = ["main", "passage_found", "token_found"]

_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def passage_found(gold: list[str], chunks: list[str], *, share: float = 0.8) -> bool:
    """Tell whether one chunk holds `share` of the words of one gold passage."""
    bags = [set(_words(chunk)) for chunk in chunks]
    for passage in gold:
        words = _words(passage)
        if words and any(sum(w in bag for w in words) >= share * len(words) for bag in bags):
            return True
    return False


def token_found(answers: list[str], chunks: list[str]) -> bool:
    """Tell whether an answer alias occurs in a chunk (case-insensitive, spaces flattened)."""
    flat = [" ".join(chunk.lower().split()) for chunk in chunks]
    return any(" ".join(a.lower().split()) in chunk for a in answers if a for chunk in flat)


def _questions(folder: Path, split: str | None) -> list[dict[str, Any]]:
    named = folder / f"{split}.jsonl"
    path = named if split and named.exists() else folder / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [q for q in rows if split is None or q.get("split", split) == split]
    return [q for q in rows if q.get("meta", {}).get("answerable", True) and q.get("answers")]


def _score(home: Path, questions: list[dict[str, Any]], k: int) -> dict[str, Any]:
    retriever = make_retriever(home=home, k=k)
    by_passage = by_token = 0
    misses: list[str] = []
    for q in questions:
        chunks = [
            f"{d.metadata.get('title', '')}\n{d.page_content}"
            for d in retriever.invoke(q["question"])
        ]
        gold = [p["text"] for p in q.get("passages", []) if p.get("is_supporting", True)]
        found_passage = passage_found(gold, chunks)
        by_passage += found_passage
        by_token += token_found(q["answers"], chunks)
        if not found_passage:
            misses.append(q["id"])
    n = max(len(questions), 1)
    return {
        "questions": len(questions),
        f"passage@{k}": round(by_passage / n, 3),
        f"token@{k}": round(by_token / n, 3),
        "passage_misses": misses,
    }


def main() -> None:
    """Ingest the set's documents and print recall as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", type=Path, required=True)
    parser.add_argument("--split")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    questions = _questions(args.set, args.split)
    with tempfile.TemporaryDirectory() as tmp:
        home = args.work or Path(tmp)
        report = ingest([args.set / "docs"], home=home, progress=False)
        result = {"set": str(args.set), "split": args.split, "chunks": report.total_chunks}
        result |= _score(home, questions, args.k)
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
