"""Calibrate `Context.abstain_below` with the trained evaluator alone (no reader calls).

For each dev question, four passages are "retrieved" by word overlap from a pool (its own
passages plus others of the same file): once from the whole pool (answerable when a passage
holds an answer string) and once with every answer-holding passage removed (the documents
cannot answer). Both are split into strips as refinement does and scored; the best strip
score is what `finalize.should_abstain` compares with `abstain_below`. The table gives, per
threshold, the share of unanswerable retrievals that would abstain and the share of
answerable ones that would abstain falsely.

    python -m bench.suites.abstention --data ../shared/data/qa/nq.dev.jsonl ... --per-file 60
"""

import argparse
import random
from collections.abc import Sequence
from pathlib import Path

from bench.harness.data import BenchPassage, Question, load_questions
from bench.harness.metrics import normalize_answer
from models.text import content_tokens
from nodes.refine_strips import split_strips

__all__ = ["best_strip_scores", "main", "retrieve_by_overlap"]

_THRESHOLDS = (-0.9, -0.8, -0.7, -0.6, -0.5, -0.4, -0.3, -0.2, 0.0)


def _holds_answer(passage: BenchPassage, answers: Sequence[str]) -> bool:
    text = normalize_answer(passage.text)
    return any(normalize_answer(a) and normalize_answer(a) in text for a in answers)


def retrieve_by_overlap(question: str, pool: Sequence[BenchPassage], k: int = 4) -> list[str]:
    """Return the `k` passages sharing most content words with the question."""
    asked = content_tokens(question)
    ranked = sorted(pool, key=lambda p: -len(asked & content_tokens(p.title + " " + p.text)))
    return [p.text for p in ranked[:k]]


def best_strip_scores(evaluator: object, question: str, passages: Sequence[str]) -> float:
    """Return the best evaluator score over the passages' two-sentence strips."""
    strips = [s for p in passages for s in split_strips(p, mode="sentences", sentences=2, words=40)]
    scores = evaluator.score(question, strips) if strips else [-1.0]  # type: ignore[attr-defined]
    return max(float(s) for s in scores)


def _pairs(questions: Sequence[Question], evaluator: object) -> list[tuple[float, float]]:
    rng = random.Random(0)
    every = [p for q in questions for p in q.passages]
    pairs = []
    for question in questions:
        pool = [*question.passages, *rng.sample(every, min(30, len(every)))]
        full = retrieve_by_overlap(question.question, pool)
        if not any(_holds_answer(BenchPassage(p, p), question.answers) for p in full):
            continue  # retrieval missed the answer: not an answerable case
        empty = [p for p in pool if not _holds_answer(p, question.answers)]
        cut = retrieve_by_overlap(question.question, empty)
        pairs.append(
            (
                best_strip_scores(evaluator, question.question, full),
                best_strip_scores(evaluator, question.question, cut),
            )
        )
    return pairs


def _table(pairs: Sequence[tuple[float, float]]) -> list[str]:
    rows = ["| abstain below | abstains when unanswerable | abstains falsely |", "|---|---:|---:|"]
    for t in _THRESHOLDS:
        hit = sum(cut < t for _, cut in pairs) / len(pairs)
        false = sum(full < t for full, _ in pairs) / len(pairs)
        rows.append(f"| {t:+.1f} | {hit:.0%} | {false:.1%} |")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Print the threshold table for the given QA files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", type=Path, required=True, help="QA JSONL files")
    parser.add_argument("--per-file", type=int, default=60, help="questions per file")
    args = parser.parse_args(argv)
    from models.evaluator import load_evaluator

    evaluator = load_evaluator()
    pairs: list[tuple[float, float]] = []
    for path in args.data:
        questions = load_questions([path])
        found = _pairs(questions[: args.per_file], evaluator)
        print(f"{path.name}: {len(found)} answerable retrievals")  # noqa: T201 - CLI output
        pairs += found
    print("\n".join(_table(pairs)))  # noqa: T201 - CLI output
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
