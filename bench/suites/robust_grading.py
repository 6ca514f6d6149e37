"""Robustness, offline: how are the retrievals of questions that lost every gold passage graded?

python -m bench.suites.robust_grading docs/bench/full-robust/records.jsonl --drop 0.5
    [--evaluator DIR ...] [--upper 0.5] [--lower -0.5] [--home H]

For a `--drop-gold` run (its `run.json` names the QA files and seed), the questions whose gold
passages were all dropped at share `drop` (`bench.harness.corpus.gold_to_drop`, recomputed) have
their
first retrieval rebuilt (`bench.harness.replay`, the `crag` strategy's top_k and mode) and graded
with
each evaluator and today's windowed grading (`bench.harness.rescore`); the report counts the CRAG
actions at `upper`/`lower`. The goal: at least 70% of these retrievals are not graded Correct.
No LLM runs; the index is built once under the acrag home's `bench/indexes`.
"""

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness.corpus import gold_to_drop
from bench.harness.data import load_questions
from bench.harness.records import read_records
from bench.harness.replay import Replay
from bench.harness.rescore import grading_context
from nodes.grade_documents import best_per_passage, crag_action, grading_batch

__all__ = ["best_grade", "lost_every_gold", "main"]


def lost_every_gold(files: Sequence[Path], share: float, seed: int) -> set[tuple[str, str]]:
    """Return (dataset, id) of the questions whose every gold passage is dropped at `share`."""
    questions = load_questions(list(files))
    every = [p for q in questions if q.documents is None for p in q.passages]
    dropped = gold_to_drop(every, share, seed=seed)
    return {
        (q.dataset, q.id)
        for q in questions
        if any(p.gold for p in q.passages) and all(p.key in dropped for p in q.passages if p.gold)
    }


def best_grade(evaluator: Any, question: str, texts: Sequence[str], context: Any) -> float | None:
    """Return the best windowed grade of one retrieval (None when nothing was retrieved)."""
    if not texts:
        return None
    batch, owners = grading_batch(texts, context, question=question)
    return max(best_per_passage(evaluator.score(question, batch), owners))


def main(argv: Sequence[str] | None = None) -> int:
    """Print, per evaluator, the CRAG actions on retrievals that lost every gold passage."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.suites.robust_grading", description=__doc__
    )
    parser.add_argument("records", type=Path, help="records.jsonl of a --drop-gold run")
    parser.add_argument("--drop", type=float, default=0.5, help="share of gold dropped")
    parser.add_argument("--strategy", default="crag", help="the records' strategy to replay")
    parser.add_argument(
        "--kept",
        action="store_true",
        help="grade the questions that kept a gold passage instead (the cost side: how many "
        "answerable retrievals stop being Correct)",
    )
    parser.add_argument("--evaluator", nargs="*", type=Path, default=[None])
    parser.add_argument("--upper", type=float, default=0.5)
    parser.add_argument("--lower", type=float, default=-0.5)
    parser.add_argument("--home", help="acrag home for the index (default: the acrag home)")
    args = parser.parse_args(argv)
    from models.evaluator import load_evaluator
    from stores.home import acrag_home

    replay = Replay(args.records, index_root=acrag_home(args.home) / "bench" / "indexes")
    lost = lost_every_gold(replay.files, args.drop, int(replay.run.get("seed", 0)))
    records = [
        r
        for r in read_records(args.records).values()
        if r.strategy == args.strategy
        and abs(r.drop_gold - args.drop) < 1e-9
        and ((r.dataset, r.id) in lost) != args.kept
    ]
    context = grading_context(replay, args.strategy)
    texts = {r.id: [d.page_content for d in replay.documents(r)] for r in records}
    report = {"questions": len(records), "recorded": dict(Counter(r.crag_action for r in records))}
    for folder in args.evaluator:
        evaluator = load_evaluator(folder)
        actions: Counter[str] = Counter()
        for record in records:
            best = best_grade(evaluator, record.question, texts[record.id], context)
            score = [] if best is None else [best]
            actions[crag_action(score, upper=args.upper, lower=args.lower)] += 1
        share = 1 - actions["Correct"] / max(1, len(records))
        report[str(folder or "committed")] = {"actions": dict(actions), "not_correct": share}
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
