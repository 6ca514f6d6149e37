"""The evidence the reader saw, rebuilt and scored, for the reader-answer correctness signal.

python -m bench.suites.answer_evidence [RECORDS ...] --out CACHE.jsonl
    [--model qwen2.5-coder-0.5b qwen2.5-coder-1.5b] [--evaluator DIR] [--home H]

For every answered route-B record of the readers (`model`) whose CRAG action kept the local
retrieval (`Correct`, `Ambiguous`, or none for plain `single`), the first retrieval is rebuilt
without any LLM (`bench.harness.replay`: the run's corpus, the strategy's `top_k` and mode, its
share of dropped gold), every passage is cut into the strips `refine_strips` cuts (the
strategy's `strip_mode` and sizes, instructions removed) and each strip is scored by the
evaluator, as the graph scores them. One line per (run, question, share of gold dropped, strip
mode) is appended to CACHE: the strips with their scores, the strip threshold and
`strips_top_k` the strategy used. Runs already in CACHE are skipped, so a stopped collection
resumes.

`python -m bench.suites.answer_confidence --evidence CACHE` reads it: features of the answer
against those strips (`models.answer_check`) join the answer-time features.
"""

import argparse
import json
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.harness.records import Record, read_records
from bench.harness.replay import Replay
from bench.harness.rescore import grading_context
from bench.harness.strategies import STRATEGIES

__all__ = [
    "EVIDENCE_ACTIONS",
    "cache_key",
    "collect",
    "join",
    "kept",
    "main",
    "read_cache",
    "usable",
]

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]
READERS = ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")
EVIDENCE_ACTIONS = (None, "Correct", "Ambiguous")
"""CRAG actions after which the reader read strips of the first local retrieval."""


def cache_key(run: str, question: str, drop_gold: float, strip_mode: str) -> str:
    """Return the key of one rebuilt evidence: run folder, question, share dropped, strip mode."""
    return f"{run}\t{question.strip()}\t{round(drop_gold, 4)}\t{strip_mode}"


def usable(record: Record, models: Sequence[str]) -> bool:
    """Return whether the record is a reader's answer read from the first local retrieval."""
    route = record.route or STRATEGIES.get(record.strategy, {}).get("route")
    return (
        record.model in models
        and record.error is None
        and not record.abstained
        and bool((record.prediction or "").strip())
        and route == "B"
        and record.crag_action in EVIDENCE_ACTIONS
    )


def run_name(path: Path) -> str:
    """Return a records file's run folder, relative to `docs/bench` when it lies there."""
    folder = path.resolve().parent
    base = ROOT / "docs" / "bench"
    return str(folder.relative_to(base)) if folder.is_relative_to(base) else folder.name


def _strips(texts: Sequence[str], context: Any) -> list[str]:
    from nodes.refine_strips import passage_strips

    return list(dict.fromkeys(piece for text in texts for piece in passage_strips(text, context)))


def collect(
    path: Path, models: Sequence[str], evaluator: Any, index_root: Path, done: set[str]
) -> Iterator[dict[str, Any]]:
    """Yield one cache line per new retrieval of the run's usable records."""
    replay = Replay(path, index_root=index_root)
    if not replay.files:
        logger.warning("%s: no run.json names its QA files; skipped", path)
        return
    name = run_name(path)
    for record in read_records(path).values():
        if not usable(record, models):
            continue
        context = grading_context(replay, record.strategy)
        key = cache_key(name, record.question, record.drop_gold, context.strip_mode)
        if key in done:
            continue
        strips = _strips([d.page_content for d in replay.documents(record)], context)
        scores = [float(s) for s in evaluator.score(record.question, strips)] if strips else []
        done.add(key)
        yield {
            "key": key,
            "strips": [[t, round(s, 4)] for t, s in zip(strips, scores, strict=True)],
            "strip_threshold": context.crag_thresholds().strip,
            "strips_top_k": context.strips_top_k,
        }


def read_cache(path: Path) -> dict[str, dict[str, Any]]:
    """Return the cache lines by key ({} when the file does not exist)."""
    if not path.is_file():
        return {}
    lines = path.read_text(encoding="utf-8").splitlines()
    return {line["key"]: line for line in map(json.loads, filter(str.strip, lines))}


def kept(line: dict[str, Any]) -> list[tuple[str, float]]:
    """Return the strips refinement keeps from one cache line (`best_strips`), best first."""
    from nodes.refine_strips import best_strips

    scored = [(str(text), float(score)) for text, score in line["strips"]]
    chosen = best_strips(scored, threshold=line["strip_threshold"], top_k=line["strips_top_k"])
    return [scored[i] for i in chosen]


def join(
    rows: Sequence[dict[str, Any]], cache: dict[str, dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, float]]]:
    """Return the rows whose evidence is in the cache, and their `answer_features`."""
    from bench.harness.replay import run_info
    from models.answer_check import answer_features

    runs: dict[str, dict[str, Any]] = {}
    found, table = [], []
    for row in rows:
        path = Path(row["records_file"])
        run = runs.setdefault(str(path), run_info(path))
        context = (run.get("contexts") or {}).get(row["strategy"]) or {}
        mode = context.get("strip_mode", "sentences")
        key = cache_key(run_name(path), row["question"], float(row.get("drop_gold") or 0), mode)
        if key not in cache:
            continue
        found.append(row)
        evidence = kept(cache[key])
        table.append(
            answer_features(row["question"], row["prediction"], row.get("logprob"), evidence)
        )
    return found, table


def main(argv: Sequence[str] | None = None) -> int:
    """Rebuild and score the evidence of the readers' answers, appending to the cache."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.suites.answer_evidence", description=__doc__
    )
    parser.add_argument("records", nargs="*", type=Path, help="records.jsonl files")
    parser.add_argument("--out", type=Path, required=True, help="the cache (JSON lines)")
    parser.add_argument("--model", nargs="+", default=list(READERS), help="readers' records")
    parser.add_argument("--evaluator", type=Path, help="evaluator artifact (default: shipped)")
    parser.add_argument("--home", help="acrag home for the indexes (default: the acrag home)")
    args = parser.parse_args(argv)
    from models.evaluator import load_evaluator
    from stores.home import acrag_home

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    paths = args.records or sorted((ROOT / "docs" / "bench").rglob("records.jsonl"))
    evaluator = load_evaluator(args.evaluator)
    index_root = acrag_home(args.home) / "bench" / "indexes"
    done = set(read_cache(args.out))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for path in paths:
        count = 0
        with args.out.open("a", encoding="utf-8") as out:
            for line in collect(path, args.model, evaluator, index_root, done):
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
                out.flush()
                count += 1
        logger.info("%s: %d new retrievals", run_name(path), count)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
