"""Recall@k on a documentation set: is the gold passage, or an answer token, in the top k?

    .venv/bin/python -m bench.suites.doc_retrieval --set bench/datasets/usrdoc [--split dev] [--k 4]
        [--ks 4,6,8] [--mode hybrid|dense|bm25] [--rerank N] [--entry-rerank N] [--work DIR]
        [--out FILE.json]

The set's `docs/` folder is ingested as a user would (`acrag ingest`, default chunking) into
`--work` (a temp folder by default), then each answerable question of the chosen split is
sent to the hybrid retriever as asked. No LLM runs. A question counts as found by passage when
one retrieved chunk holds at least 80% of the words of one of its gold passages, and by token
when an answer alias occurs (case-insensitive) in a retrieved chunk, and by exact token when an
alias occurs as written, as a whole token (`-A` is not `-a`, nor the start of `-Ab` or
`--A`): what a reader that answers with the token needs. `--ks` measures several depths in
one pass; the JSON also holds each question's ranks (`bench.reports.failure_kinds` reads
them). `--rerank N` orders the top N chunks by the trained retrieval evaluator's grade (the
best of the chunk and its sentence windows, as `grade_documents` grades) before taking the
top k: the evaluator as a reranker. `--entry-rerank N` orders the top N chunks by reciprocal
rank fusion of their retrieval rank and the rank of their best entry (`split_entries`; a chunk
without entries counts whole) by MiniLM cosine with the question: option lists ranked by the
one entry that matches, not by the list as a whole. Run it with another checkout's interpreter (its
`.venv/bin/python`) to measure that checkout's chunker.
"""

import argparse
import json
import logging
import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from stores.ingest import ingest
from stores.retrieval import Mode, make_retriever

__all__ = ["cosines", "exact_token_rank", "main", "passage_found", "passage_rank", "token_found"]

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


def exact_token_rank(answers: list[str], chunks: list[str]) -> int | None:
    """Return the rank (0-based) of the first chunk holding an alias as a whole token, or None.

    Case matters and a token does not continue into a word character or, before it, a hyphen
    or word character: `-A` is found in "-A, --after-context" but not in "-a" or "-Ab".
    """
    patterns = [
        re.compile(r"(?<![\w-])" + re.escape(a.strip()) + r"(?!\w)") for a in answers if a.strip()
    ]
    for rank, chunk in enumerate(chunks):
        if any(p.search(chunk) for p in patterns):
            return rank
    return None


def passage_rank(gold: list[str], chunks: list[str]) -> int | None:
    """Return the rank (0-based) of the first chunk holding a gold passage, or None."""
    return next((i for i, chunk in enumerate(chunks) if passage_found(gold, [chunk])), None)


def _questions(folder: Path, split: str | None) -> list[dict[str, Any]]:
    named = folder / f"{split}.jsonl"
    path = named if split and named.exists() else folder / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [q for q in rows if split is None or q.get("split", split) == split]
    return [q for q in rows if q.get("meta", {}).get("answerable", True) and q.get("answers")]


def _reranked(question: str, docs: list[Any], depth: int) -> list[Any]:
    """Return the top `depth` documents ordered by the trained evaluator's grade, best first."""
    from graphs.context import Context
    from models.evaluator import load_evaluator
    from nodes.grade_documents import best_per_passage, grading_batch

    head = docs[:depth]
    batch, owners = grading_batch([d.page_content for d in head], Context(), question=question)
    grades = best_per_passage(load_evaluator().score(question, batch), owners)
    order = sorted(range(len(head)), key=lambda i: -grades[i])
    return [head[i] for i in order]


_FUSION_K = 10


def cosines(question: str, texts: list[str]) -> list[float]:
    """Return the MiniLM cosine of each text with the question (the model loads once)."""
    from models.embeddings import MiniLMEmbeddings

    vectors = np.asarray(MiniLMEmbeddings().embed_documents([question, *texts]))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors[1:] @ vectors[0]).tolist()


def _entry_reranked(question: str, docs: list[Any], depth: int) -> list[Any]:
    """Return the top `depth` documents fused with the order of their best entry's cosine."""
    from nodes._doc_entries import split_entries

    head = docs[:depth]
    texts: list[str] = []
    owners: list[int] = []
    for i, doc in enumerate(head):
        entries = split_entries(doc.page_content)
        texts += [f"{e.head} {e.description}" for e in entries] or [doc.page_content]
        owners += [i] * max(len(entries), 1)
    best = [-1.0] * len(head)
    for owner, score in zip(owners, cosines(question, texts), strict=True):
        best[owner] = max(best[owner], score)
    by_entry = {
        doc: rank for rank, doc in enumerate(sorted(range(len(head)), key=lambda i: -best[i]))
    }
    fused = sorted(
        range(len(head)), key=lambda i: -(1 / (_FUSION_K + i) + 1 / (_FUSION_K + by_entry[i]))
    )
    return [head[i] for i in fused]


def _found(rank: int | None, k: int) -> bool:
    return rank is not None and rank < k


def _score(
    home: Path,
    questions: list[dict[str, Any]],
    ks: list[int],
    mode: Mode = "hybrid",
    rerank: int = 0,
    entry_rerank: int = 0,
) -> dict[str, Any]:
    retriever = make_retriever(home=home, k=max(*ks, rerank, entry_rerank), mode=mode)
    ranks: dict[str, dict[str, int | None]] = {}
    loose: dict[str, list[str]] = {}
    for q in questions:
        docs = retriever.invoke(q["question"])
        if rerank:
            docs = _reranked(q["question"], docs, rerank)
        if entry_rerank:
            docs = _entry_reranked(q["question"], docs, entry_rerank)
        chunks = [f"{d.metadata.get('title', '')}\n{d.page_content}" for d in docs]
        gold = [p["text"] for p in q.get("passages", []) if p.get("is_supporting", True)]
        ranks[q["id"]] = {
            "passage": passage_rank(gold, chunks),
            "exact": exact_token_rank(q["answers"], chunks),
        }
        loose[q["id"]] = chunks
    n = max(len(questions), 1)
    result: dict[str, Any] = {
        "questions": len(questions),
        "mode": mode,
        "rerank": rerank,
        "entry_rerank": entry_rerank,
    }
    for k in ks:
        result[f"passage@{k}"] = round(sum(_found(r["passage"], k) for r in ranks.values()) / n, 3)
        found = sum(token_found(q["answers"], loose[q["id"]][:k]) for q in questions)
        result[f"token@{k}"] = round(found / n, 3)
        result[f"exact@{k}"] = round(sum(_found(r["exact"], k) for r in ranks.values()) / n, 3)
    result["passage_misses"] = [i for i, r in ranks.items() if not _found(r["passage"], ks[0])]
    return result | {"ranks": ranks}


def main() -> None:
    """Ingest the set's documents and print recall as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", type=Path, required=True)
    parser.add_argument("--split")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--ks", help="comma-separated depths (beats --k), e.g. 4,6,8")
    parser.add_argument("--mode", default="hybrid", choices=["hybrid", "dense", "bm25"])
    parser.add_argument("--rerank", type=int, default=0, help="evaluator-rerank the top N")
    parser.add_argument("--entry-rerank", type=int, default=0, help="entry-rerank the top N")
    parser.add_argument("--work", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    questions = _questions(args.set, args.split)
    with tempfile.TemporaryDirectory() as tmp:
        home = args.work or Path(tmp)
        report = ingest([args.set / "docs"], home=home, progress=False)
        result = {"set": str(args.set), "split": args.split, "chunks": report.total_chunks}
        ks = [int(k) for k in args.ks.split(",")] if args.ks else [args.k]
        result |= _score(home, questions, ks, args.mode, args.rerank, args.entry_rerank)
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
