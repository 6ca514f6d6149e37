"""Can a scorer pick the option entry that answers, where the reader picks its neighbour?

    .venv/bin/python -m bench.suites.entry_choice --set bench/datasets/docqa --split dev \
        [--records RUN/records.jsonl] [--k 4] [--work DIR] [--out FILE.json]

The reading failures on documentation (docs/answers.md) are mostly the entry next to the right
one in an option list. This asks, with no LLM, whether the entries themselves can be ranked:
the set's `docs/` folder is ingested as a user would, each answerable question whose gold is
a command-line option is sent to the hybrid retriever, the top k chunks are split into
entries (`nodes._doc_entries.split_entries`: a head such as `-A, --after-context=NUM` and its
description), and every entry is scored against the question by each candidate scorer: the
trained retrieval evaluator, the MiniLM embedding's cosine, BM25 over the question's entries,
and the listing order (the baseline). A question counts where an entry's head holds a gold
alias as written; the report gives each scorer's top-1 and top-2 rate there and, with
`--records` of a reader run on the same questions, the same rates on the questions that the
reader got wrong although the right entry was listed.
"""

import argparse
import json
import logging
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bm25s

from bench.harness.records import read_records
from bench.reports.rescore_answers import acc_today
from bench.suites.doc_retrieval import cosines, exact_token_rank
from nodes._doc_entries import Entry, split_entries
from stores.ingest import ingest
from stores.retrieval import make_retriever

__all__ = ["Scorer", "gold_rank", "main", "scorers"]

Scorer = Callable[[str, list[str]], Sequence[float]]
"""(question, entry texts) -> one score per entry, higher is better."""

_OPTION_GOLD = re.compile(r"--?[A-Za-z0-9]")


def _bm25(question: str, texts: list[str]) -> Sequence[float]:
    index = bm25s.BM25()
    index.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    query = bm25s.tokenize([question], stopwords="en", show_progress=False)
    found, scores = index.retrieve(query, k=len(texts), show_progress=False)
    by_entry = dict(zip(found[0].tolist(), scores[0].tolist(), strict=True))
    return [by_entry.get(i, 0.0) for i in range(len(texts))]


def scorers() -> dict[str, Scorer]:
    """Return the candidate scorers by name (the models load on first use)."""
    from models.evaluator import load_evaluator

    def evaluator(question: str, texts: list[str]) -> Sequence[float]:
        return [float(s) for s in load_evaluator().score(question, texts)]

    def listed(question: str, texts: list[str]) -> Sequence[float]:
        return [-float(i) for i in range(len(texts))]

    return {"listed": listed, "bm25": _bm25, "dense": cosines, "evaluator": evaluator}


def gold_rank(scores: Sequence[float], gold: set[int]) -> int:
    """Return the 0-based rank of the best-scored gold entry."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    return min(order.index(i) for i in gold)


def _entries(chunks: list[str]) -> list[Entry]:
    return [e for chunk in chunks for e in split_entries(chunk)]


def _reader_right(path: Path | None) -> dict[str, bool]:
    if path is None:
        return {}
    return {r.id: acc_today(r) > 0 for r in read_records(path).values()}


def _rates(found: list[int]) -> dict[str, float | int]:
    n = max(len(found), 1)
    return {
        "n": len(found),
        "top1": round(sum(r == 0 for r in found) / n, 3),
        "top2": round(sum(r <= 1 for r in found) / n, 3),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Ingest the set, rank the retrieved entries with each scorer, print the rates as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, required=True)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--records", type=Path, help="a reader run's records.jsonl")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    rows = [json.loads(x) for x in (args.set / f"{args.split}.jsonl").read_text().splitlines()]
    asked = [q for q in rows if any(_OPTION_GOLD.match(a) for a in q.get("answers") or [])]
    right = _reader_right(args.records)
    use = scorers()
    per: dict[str, list[int]] = {name: [] for name in use}
    missed: dict[str, list[int]] = {name: [] for name in use}
    detail: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = args.work or Path(tmp)
        ingest([args.set / "docs"], home=home, progress=False)
        retriever = make_retriever(home=home, k=args.k)
        for q in asked:
            docs = retriever.invoke(q["question"])
            entries = _entries([d.page_content for d in docs])
            gold = {
                i for i, e in enumerate(entries) if exact_token_rank(q["answers"], [e.head]) == 0
            }
            if not gold:
                continue
            texts = [f"{e.head} {e.description}" for e in entries]
            got = {name: gold_rank(s(q["question"], texts), gold) for name, s in use.items()}
            for name, rank in got.items():
                per[name].append(rank)
                if right.get(q["id"]) is False:
                    missed[name].append(rank)
            detail.append({"id": q["id"], "entries": len(entries), "ranks": got})
    result = {
        "set": str(args.set),
        "split": args.split,
        "questions_with_option_gold": len(asked),
        "gold_entry_listed": len(detail),
        "scorers": {name: _rates(found) for name, found in per.items()},
        "reader_wrong": {name: _rates(found) for name, found in missed.items()},
        "questions": detail,
    }
    text = json.dumps(result, indent=1)
    print(text)  # noqa: T201 - CLI output
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
