"""`acrag train labels`: silver labels for the complexity classifier from the graph's routes.

Slow (every question runs routes A, B and C with the reader until one is right) and
resumable: rows are appended to a JSONL file as they are made.
"""

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from models.errors import UserError

if TYPE_CHECKING:
    from training.silver import StrategyRunner

__all__ = ["add_labels_parser", "data_dir", "home_of", "run_labels"]


def add_labels_parser(kinds: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add `train labels` to the judges of `acrag train`."""
    labels = kinds.add_parser("labels", help="silver labels from the graph's A/B/C routes (slow)")
    labels.add_argument("--data-dir", type=Path, help="folder holding qa/*.jsonl")
    labels.add_argument(
        "--split", default="train", choices=("train", "dev"), help="which QA split to label"
    )
    labels.add_argument("--per-dataset", type=int, default=10, help="questions per dataset")
    labels.add_argument("--limit", type=int, help="label at most N new questions in this run")
    labels.add_argument(
        "--seed", type=int, default=5, help="seed of the question sample (keep it to resume)"
    )
    labels.add_argument("--model", help="reader spec (default: the graph's generator_model)")
    labels.add_argument(
        "--index-passages",
        type=int,
        default=0,
        help="0 (default): one index per dataset, as hard as the benchmark's; N: a small index "
        "per question, its passages and distractors up to N",
    )
    labels.add_argument("--no-cache", action="store_true", help="do not cache LLM responses")
    labels.add_argument(
        "--every-route", action="store_true", help="run all routes, not only up to the first right"
    )
    labels.add_argument(
        "--out", type=Path, help="label JSONL (appended; labelled ids skipped; one reader a file)"
    )
    labels.set_defaults(handler=run_labels)


def data_dir(args: argparse.Namespace) -> Path:
    """Return the shared data folder `--data-dir` names, else the default one."""
    from training.data import default_data_dir

    return Path(args.data_dir) if args.data_dir else default_data_dir()


def home_of(args: argparse.Namespace) -> Path:
    """Return the acrag home of the command (`--home`, else the default)."""
    from stores.home import acrag_home

    return acrag_home(getattr(args, "home", None))


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", spec).strip("-") or "reader"


def _graph_runner(reader: str) -> "StrategyRunner":
    """Return the benchmark runner over the live graph, `reader` in every model role."""
    from bench.harness.runner import GraphRunner

    return GraphRunner(model=reader)


def run_labels(args: argparse.Namespace) -> int:
    """Label a seeded per-dataset subset with the graph's routes, appending to a JSONL file."""
    from langchain_core.globals import get_llm_cache, set_llm_cache

    from bench.harness.data import load_questions
    from bench.harness.llm_cache import install_llm_cache
    from graphs import Context
    from training.data import split_files
    from training.silver import LabelConfig, run_to_file, select_subset

    if args.limit is not None and args.limit < 1:
        raise UserError("--limit must be at least 1")
    home, reader = home_of(args), args.model or Context().generator_model
    pool = load_questions(split_files(data_dir(args), args.split))
    subset = select_subset(pool, args.per_dataset, seed=args.seed)
    out = args.out or home / "labels" / f"silver.{args.split}.{_slug(reader)}.jsonl"
    config = LabelConfig(
        reader,
        home / "labels" / "indexes",
        index_passages=args.index_passages,
        seed=args.seed,
        every_route=args.every_route,
    )
    previous = get_llm_cache()
    if not args.no_cache:
        install_llm_cache(home / "labels" / "llm_cache.sqlite")
    try:
        started = time.perf_counter()
        added = run_to_file(
            subset,
            lambda: _graph_runner(reader),
            out,
            config=config,
            pool=pool,
            limit=args.limit,
        )
    finally:
        set_llm_cache(previous)
    seconds = round(time.perf_counter() - started, 1)
    report = {"labelled": added, "file": str(out), "reader": reader, "seconds": seconds}
    sys.stdout.write(json.dumps(report) + "\n")
    return 0
