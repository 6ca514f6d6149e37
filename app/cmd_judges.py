"""`acrag judges eval --data FILE...`: measure the committed judges and print metrics as JSON."""

import argparse
import json
import random
import sys
from pathlib import Path

__all__ = ["add_parser"]


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `judges` subcommand."""
    parser = subparsers.add_parser("judges", help="evaluate the learned judges")
    actions = parser.add_subparsers(title="actions", metavar="ACTION", required=True)
    evaluate = actions.add_parser("eval", help="print evaluator and classifier metrics as JSON")
    evaluate.add_argument("--data", nargs="+", type=Path, required=True, help="QA JSONL files")
    evaluate.add_argument("--evaluator", type=Path, help="evaluator artifact folder")
    evaluate.add_argument("--classifier", type=Path, help="classifier artifact folder")
    evaluate.add_argument(
        "--labels", type=Path, help="silver-label JSONL for these questions (others: bias labels)"
    )
    evaluate.add_argument("--limit", type=int, help="evaluate a seeded sample of N questions")
    evaluate.add_argument(
        "--only", choices=("evaluator", "classifier"), help="evaluate one judge only"
    )
    evaluate.set_defaults(handler=run_eval)


def run_eval(args: argparse.Namespace) -> int:
    """Evaluate and write one JSON object to stdout."""
    from models.training.data import load_records
    from models.training.evaluate import evaluate_classifier, evaluate_evaluator
    from models.training.train_classifier import LABELS_DIR

    records = load_records(args.data)
    if args.limit and args.limit < len(records):
        records = random.Random(0).sample(records, args.limit)
    labels = args.labels
    if labels is None:
        split = "dev" if any(".dev." in p.name for p in args.data) else "train"
        labels = LABELS_DIR / f"silver.{split}.jsonl"
    report: dict[str, object] = {"files": [str(p) for p in args.data], "questions": len(records)}
    if args.only in (None, "evaluator"):
        report["evaluator"] = evaluate_evaluator(records, artifact=args.evaluator)
    if args.only in (None, "classifier"):
        report["classifier"] = evaluate_classifier(
            records, artifact=args.classifier, labels_file=labels
        )
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0
