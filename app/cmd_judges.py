"""`acrag judges eval`: measure the committed judges and print metrics as JSON or tables.

QA files (`--data`) give the evaluator's and classifier's metrics and the support judge's on
held-out pairs; benchmark records (`--records`) give the support judges' separation of a
reader's right and wrong answers (`bench.suites.support_eval`).
"""

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from models.errors import UserError

__all__ = ["add_parser"]

JUDGES = ("evaluator", "classifier", "support")


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `judges` subcommand."""
    parser = subparsers.add_parser("judges", help="evaluate the learned judges")
    actions = parser.add_subparsers(title="actions", metavar="ACTION", required=True)
    evaluate = actions.add_parser("eval", help="print the judges' metrics")
    evaluate.add_argument("--data", nargs="+", type=Path, help="QA JSONL files")
    evaluate.add_argument("--evaluator", type=Path, help="evaluator artifact folder")
    evaluate.add_argument("--classifier", type=Path, help="classifier artifact folder")
    evaluate.add_argument("--support", type=Path, help="support-judge artifact folder")
    evaluate.add_argument(
        "--labels", type=Path, help="silver-label JSONL for these questions (others: bias labels)"
    )
    evaluate.add_argument("--limit", type=int, help="evaluate a seeded sample of N questions")
    evaluate.add_argument(
        "--route-a", type=Path, help="route-A JSONL whose dev split the classifier is scored on"
    )
    evaluate.add_argument(
        "--docs",
        type=Path,
        help="documentation files the data's passage titles name (adds neighbouring entries "
        "as on-topic negatives for the evaluator)",
    )
    evaluate.add_argument("--only", choices=JUDGES, help="evaluate one judge only")
    evaluate.add_argument(
        "--format",
        choices=("json", "table"),
        default="json",
        help="JSON (default), or markdown tables for the classifier and JSON for the rest",
    )
    _add_records(evaluate)
    evaluate.set_defaults(handler=run_eval)


def _add_records(evaluate: argparse.ArgumentParser) -> None:
    evaluate.add_argument(
        "--records",
        nargs="+",
        type=Path,
        help="benchmark records.jsonl files: support judges on the reader's own answers",
    )
    evaluate.add_argument(
        "--evidence",
        choices=("retrieved", "own"),
        default="retrieved",
        help="evidence per answer: re-run the benchmark's retrieval (default) or the "
        "question's own passages",
    )
    evaluate.add_argument(
        "--strategies",
        default="single,crag-correct",
        help="record strategies that count (default single,crag-correct)",
    )
    evaluate.add_argument(
        "--llm", metavar="MODEL", help="also score the answers with the LLM support judge (slow)"
    )


def _support_installed(args: argparse.Namespace) -> bool:
    from models.support import ARTIFACT_DIR

    return bool(args.support) or (ARTIFACT_DIR / "manifest.json").is_file()


def _on_data(args: argparse.Namespace, report: dict[str, Any]) -> None:
    from training.data import load_records
    from training.evaluate import (
        evaluate_classifier,
        evaluate_evaluator,
        evaluate_support,
    )
    from training.route_a import ROUTE_A_FILE
    from training.train_classifier import LABELS_DIR

    records = load_records(args.data)
    if args.limit and args.limit < len(records):
        records = random.Random(0).sample(records, args.limit)
    labels = args.labels
    if labels is None:
        split = "dev" if any(".dev." in p.name for p in args.data) else "train"
        labels = LABELS_DIR / f"silver.{split}.jsonl"
    report |= {"files": [str(p) for p in args.data], "questions": len(records)}
    if args.only in (None, "evaluator"):
        report["evaluator"] = evaluate_evaluator(
            records, artifact=args.evaluator, docs_dir=args.docs
        )
    if args.only in (None, "classifier"):
        report["classifier"] = evaluate_classifier(
            records,
            artifact=args.classifier,
            labels_file=labels,
            route_a_file=args.route_a or ROUTE_A_FILE,
        )
    if args.only == "support" or (args.only is None and _support_installed(args)):
        report["support"] = evaluate_support(records, artifact=args.support, labels_file=labels)


def _on_records(args: argparse.Namespace, report: dict[str, Any]) -> None:
    from bench.suites.support_eval import evaluate_reader_answers
    from stores.home import acrag_home

    report["support_reader_answers"] = evaluate_reader_answers(
        args.records,
        data=args.data or [],
        evidence=args.evidence,
        index_root=acrag_home(getattr(args, "home", None)) / "bench" / "indexes",
        strategies=[s.strip() for s in args.strategies.split(",") if s.strip()],
        artifact=args.support,
        llm=args.llm,
    )


def run_eval(args: argparse.Namespace) -> int:
    """Evaluate and write one JSON object (or markdown tables) to stdout."""
    if not args.data and not args.records:
        raise UserError("pass QA files with --data, benchmark records with --records, or both")
    if args.records and args.only not in (None, "support"):
        raise UserError("--records measures the support judges; use it with --only support")
    report: dict[str, Any] = {}
    if args.data:
        _on_data(args, report)
    if args.records:
        _on_records(args, report)
    sys.stdout.write(_tables(report) if args.format == "table" else _json(report))
    return 0


def _json(value: object) -> str:
    return json.dumps(value, indent=2) + "\n"


def _tables(report: dict[str, Any]) -> str:
    """Render the classifier's section as markdown tables, the others as JSON blocks."""
    from training.classifier_report import markdown_report

    sections = []
    for name, value in report.items():
        if name == "classifier":
            sections.append(f"## classifier\n\n{markdown_report(value)}")
        elif isinstance(value, dict):
            sections.append(f"## {name}\n\n```json\n{_json(value)}```\n")
        else:
            sections.append(f"{name}: {json.dumps(value)}\n")
    return "\n".join(sections)
