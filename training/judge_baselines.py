"""Judge benchmarks: the trained evaluator against bi-encoder cosine and the LLM judge, and speed.

Run `python -m training.judge_baselines --data ../shared/data/qa/*.dev.jsonl --sample 200`.
All judges see the same seeded sample of (question, passage) pairs built as in `acrag judges
eval` (relevant passages, same-question hard distractors, other questions' passages). The cosine
baseline has no natural cut, so its accuracy uses the best cut on the sample itself (optimistic
for it). A training report (it reads the training pairs), so it lives above bench.
"""

import argparse
import json
import logging
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from bench.harness.judge_metrics import accuracy
from training.calibrate import pair_metrics
from training.data import Pair, build_pairs, load_records

__all__ = ["compare_judges", "main", "speed"]

logger = logging.getLogger(__name__)


def _best_cut_accuracy(labels: Sequence[int], scores: Sequence[float]) -> float:
    return max(accuracy(labels, [int(s >= cut) for s in scores]) for cut in set(scores))


def _cosine_scores(pairs: Sequence[Pair]) -> list[float]:
    from models.embeddings import MiniLMEmbeddings

    embeddings = MiniLMEmbeddings(precision="fp32")  # as docs/judges.md measured it
    questions = embeddings.embed_documents([p.question for p in pairs])
    texts = embeddings.embed_documents([p.text for p in pairs])
    return [
        sum(a * b for a, b in zip(q, t, strict=True)) for q, t in zip(questions, texts, strict=True)
    ]


def _llm_scores(pairs: Sequence[Pair], model_spec: str) -> list[float]:
    from models.chat import load_chat_model
    from models.judges_llm import LlmEvaluator

    judge = LlmEvaluator(load_chat_model(model_spec))
    return [judge.score(p.question, [p.text])[0] for p in tqdm(pairs, desc="llm judge")]


def _timed(fn: Callable[[], list[float]]) -> tuple[list[float], float]:
    start = time.perf_counter()
    scores = fn()
    return scores, time.perf_counter() - start


def compare_judges(
    records: list[dict[str, Any]], *, sample: int = 200, llm: str | None = "local", seed: int = 0
) -> dict[str, Any]:
    """Return accuracy and AUC of each judge on one seeded sample of pairs."""
    from models.evaluator import load_evaluator

    pairs = build_pairs(records, seed=seed)
    pairs = random.Random(seed).sample(pairs, min(sample, len(pairs)))
    labels = [p.label for p in pairs]
    trained, seconds = _timed(
        lambda: load_evaluator().score_pairs([p.question for p in pairs], [p.text for p in pairs])
    )
    report: dict[str, Any] = {"pairs": len(pairs), "positives": sum(labels)}
    report["trained"] = {**pair_metrics(labels, trained), "pairs_per_s": len(pairs) / seconds}
    cosine, seconds = _timed(lambda: _cosine_scores(pairs))
    report["cosine"] = {
        "accuracy_best_cut": _best_cut_accuracy(labels, cosine),
        "auc": pair_metrics(labels, cosine)["auc"],
    }
    if llm:
        scores, seconds = _timed(lambda: _llm_scores(pairs, llm))
        report["llm"] = {
            **pair_metrics(labels, scores),
            "model": llm,
            "pairs_per_s": len(pairs) / seconds,
        }
    return report


def speed(
    records: list[dict[str, Any]], *, artifact: Path | None = None, sample: int = 512, seed: int = 0
) -> dict[str, Any]:
    """Compare float32 and int8 dynamic-quantized scoring: pairs/s and accuracy on one sample.

    Quantization applies to cross-encoder artifacts; an embedding-head artifact runs the same
    float32 model twice (a repeat measurement).
    """
    from models.evaluator import load_evaluator

    pairs = random.Random(seed).sample(build_pairs(records, seed=seed), sample)
    labels = [p.label for p in pairs]
    report: dict[str, Any] = {"pairs": len(pairs)}
    questions, texts = [p.question for p in pairs], [p.text for p in pairs]
    for name, quantized in (("float32", False), ("int8", True)):
        evaluator = load_evaluator(artifact, quantized=quantized)
        evaluator.score_pairs(questions[:32], texts[:32])  # warm-up
        start = time.perf_counter()
        scores = evaluator.score_pairs(questions, texts)
        seconds = time.perf_counter() - start
        report[name] = {**pair_metrics(labels, scores), "pairs_per_s": len(pairs) / seconds}
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison (and the speed test) and print JSON."""
    parser = argparse.ArgumentParser(prog="python -m training.judge_baselines")
    parser.add_argument("--data", nargs="+", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--llm", default="local", help="chat model for the LLM judge; '' skips it")
    parser.add_argument("--speed", type=int, default=512, help="pairs for the speed test; 0 skips")
    parser.add_argument("--speed-artifact", type=Path, help="evaluator artifact for the speed test")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    records = load_records(args.data)
    report: dict[str, Any] = {
        "judges": compare_judges(records, sample=args.sample, llm=args.llm or None)
    }
    if args.speed:
        report["speed"] = speed(records, artifact=args.speed_artifact, sample=args.speed)
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
