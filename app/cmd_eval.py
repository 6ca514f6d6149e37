"""`acrag eval`: benchmark the strategies on QA files and write tables and pictures."""

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bench.harness.strategies import BASELINES
from models.defaults import DEFAULT_MODEL, HELPER_MODEL
from models.errors import UserError

if TYPE_CHECKING:
    from bench.harness.evaluate import EvalConfig

__all__ = ["DEFAULT_STRATEGIES", "add_parser", "parse_shares", "run"]

DEFAULT_STRATEGIES = "no-retrieval,single,ircot,crag,self-crag,adaptive,adaptive-oracle"


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `eval` subcommand."""
    parser = subparsers.add_parser(
        "eval", help="benchmark strategies on QA files (EM / F1 / Acc, cost, plots)"
    )
    parser.add_argument(
        "--data",
        nargs="+",
        type=Path,
        required=True,
        metavar="FILE",
        help="QA files in the shared JSONL schema (a dataset.json beside a file may ship "
        "documents, which are then indexed whole)",
    )
    parser.add_argument(
        "--strategies",
        default=DEFAULT_STRATEGIES,
        help=f"comma-separated strategies (default: {DEFAULT_STRATEGIES}, acrag's own "
        "strategies only; also: acrag, the full graph; and the peer baselines "
        f"{', '.join(BASELINES)}, LangGraph's CRAG and Self-RAG tutorials run on the same "
        "models, index and web backend)",
    )
    parser.add_argument("--limit", type=int, help="questions per file (default: all)")
    parser.add_argument(
        "--model",
        default=DEFAULT_MODEL,
        help=f"chat model spec (default: {DEFAULT_MODEL}, with {HELPER_MODEL} as keyword "
        "rewriter and judge; any other spec serves every role; smollm2 is faster)",
    )
    parser.add_argument("--out", type=Path, required=True, help="results folder (resumable)")
    parser.add_argument(
        "--extra-corpus",
        nargs="*",
        type=Path,
        default=[],
        metavar="FILE",
        help="extra {title, text} JSONL passages for the retrieval corpus",
    )
    parser.add_argument(
        "--drop-gold",
        default="0",
        metavar="SHARES",
        help="comma-separated shares of gold passages to drop (e.g. 0,0.25,0.5)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the gold-dropping choice")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="settings",
        help="a graph Context setting, e.g. evaluator=trained",
    )
    parser.add_argument("--no-cache", action="store_true", help="do not cache LLM responses")
    parser.add_argument(
        "--no-warm-up",
        action="store_true",
        help="skip loading models before the first timed question",
    )
    parser.add_argument(
        "--warm-prompt-cache",
        action="store_true",
        help="let llama.cpp reuse the previous prompt's KV cache (faster, but a strategy's "
        "time then depends on what ran before it; default: every LLM call starts cold)",
    )
    parser.add_argument(
        "--shared-cache",
        action="store_true",
        help="strategies share the LLM cache: a request identical to one another strategy "
        "already made (same prompt and settings) is answered once per question, so common "
        "steps (condensing, classifying, an unchanged answer prompt) are not paid again; the "
        "seconds of such runs then depend on the order, so take costs from a cold run",
    )
    parser.add_argument(
        "--fixed-order",
        action="store_true",
        help="run the strategies in the listed order on every question (default: an order "
        "shuffled per question, seeded by its id)",
    )
    parser.set_defaults(handler=run)


def parse_shares(text: str) -> list[float]:
    """Parse comma-separated shares in [0, 1]."""
    try:
        shares = [float(part) for part in text.split(",") if part.strip()]
    except ValueError as error:
        raise UserError(f"--drop-gold takes numbers like 0,0.25,0.5 ({error})") from error
    if not shares or any(not 0 <= s <= 1 for s in shares):
        raise UserError("--drop-gold shares must lie in [0, 1]")
    return sorted(set(shares))


def _git_commit() -> str | None:
    try:
        found = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return found.stdout.strip() or None


def write_run_info(out: Path, config: "EvalConfig", *, command: str) -> Path:
    """Write `run.json`: the command, the code's commit and each strategy's full Context."""
    from dataclasses import asdict

    from bench.harness.evaluate import runner_settings
    from bench.harness.paths import portable_path
    from bench.harness.runner import make_context
    from bench.harness.strategies import ORACLE

    settings = runner_settings(config)
    contexts = {}
    for strategy in config.strategies:
        if strategy != ORACLE:
            context = asdict(
                make_context(strategy, model=config.model, settings=settings, home=Path("."))
            )
            contexts[strategy] = {k: v for k, v in context.items() if k != "home"}
    info = {
        "command": command,
        "git_commit": _git_commit(),
        "model": config.model,
        "data": [portable_path(p) for p in config.data],
        "limit": config.limit,
        "drop_gold": config.drop_gold,
        "seed": config.seed,
        "cold_start": config.cold_start,
        "interleave": config.interleave,
        "contexts": contexts,
    }
    path = out / "run.json"
    path.write_text(json.dumps(info, indent=1), encoding="utf-8")
    return path


def run(args: argparse.Namespace) -> int:
    """Run the benchmark, write its reports and print where they are."""
    from langchain_core.globals import get_llm_cache, set_llm_cache

    from bench.harness.evaluate import EvalConfig, run_eval, runner_settings
    from bench.harness.llm_cache import install_llm_cache
    from bench.harness.paths import portable_command
    from bench.harness.runner import GraphRunner
    from bench.harness.strategies import parse_strategies
    from bench.reports.outputs import REPORT_FILE, write_reports
    from graphs.context import parse_settings
    from stores.home import acrag_home

    if args.limit is not None and args.limit < 1:
        raise UserError("--limit must be at least 1")
    home = acrag_home(args.home)
    settings = parse_settings(args.settings)  # checked once more per strategy by `make_context`
    config = EvalConfig(
        data=list(args.data),
        strategies=parse_strategies(args.strategies),
        out=args.out,
        index_root=home / "bench" / "indexes",
        model=args.model,
        limit=args.limit,
        extra_corpus=list(args.extra_corpus),
        drop_gold=parse_shares(args.drop_gold),
        seed=args.seed,
        warm_up=not args.no_warm_up,
        settings=settings,
        cold_start=not args.warm_prompt_cache,
        interleave=not args.fixed_order,
    )
    previous = get_llm_cache()
    cache = None if args.no_cache else install_llm_cache(home / "bench" / "llm_cache.sqlite")
    try:
        records = run_eval(
            config,
            lambda: GraphRunner(
                model=args.model,
                settings=runner_settings(config),
                cache=cache,
                shared_cache=args.shared_cache,
            ),
        )
    finally:
        set_llm_cache(previous)
    command = portable_command("acrag", sys.argv[1:], home=home)
    paths = write_reports(records, args.out, command=command)
    paths.append(write_run_info(args.out, config, command=command))
    sys.stdout.write((args.out / REPORT_FILE).read_text(encoding="utf-8"))
    sys.stdout.write("\nwrote " + ", ".join(str(p) for p in paths) + "\n")
    return 0
