"""`acrag train evaluator|classifier|labels`: reproduce the learned judges' artifacts."""

import argparse
import json
import sys
from pathlib import Path

__all__ = ["add_parser"]


def _common(parser: argparse.ArgumentParser, *, steps: int, budget: float) -> None:
    parser.add_argument(
        "--data-dir", type=Path, help="folder holding qa/*.jsonl (default: ../shared/data)"
    )
    parser.add_argument("--out", type=Path, help="artifact folder (default: the committed one)")
    parser.add_argument(
        "--steps", type=int, default=steps, help=f"training steps (default {steps})"
    )
    parser.add_argument("--limit", type=int, help="train on N training questions only")
    parser.add_argument("--seed", type=int, default=13, help="random seed (default 13)")
    parser.add_argument(
        "--time-budget",
        type=float,
        default=budget,
        help=f"stop after N seconds; 0 for no limit (default {budget:.0f})",
    )


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `train` subcommand."""
    parser = subparsers.add_parser("train", help="train the learned judges")
    kinds = parser.add_subparsers(title="judges", metavar="JUDGE", required=True)
    evaluator = kinds.add_parser("evaluator", help="train the CRAG retrieval evaluator")
    _common(evaluator, steps=1600, budget=0)
    evaluator.add_argument(
        "--no-calibrate", action="store_true", help="skip choosing thresholds on the dev files"
    )
    evaluator.add_argument(
        "--architecture",
        choices=("cross-encoder", "embedding-head"),
        default="cross-encoder",
        help="MiniLM fine-tuned on the pair (default) or a head over frozen MiniLM embeddings",
    )
    evaluator.add_argument(
        "--top-layers",
        type=int,
        default=0,
        help="cross-encoder: MiniLM top layers trained outright (default 0)",
    )
    evaluator.add_argument(
        "--lora-rank",
        type=int,
        default=16,
        help="cross-encoder: LoRA rank on every encoder layer; 0 for none (default 16)",
    )
    evaluator.add_argument(
        "--lr", type=float, default=5e-4, help="cross-encoder learning rate (default 5e-4)"
    )
    evaluator.add_argument(
        "--resume", type=Path, help="continue training from this artifact folder (use a new --seed)"
    )
    evaluator.set_defaults(handler=run_evaluator)
    classifier = kinds.add_parser("classifier", help="train the complexity classifier")
    _common(classifier, steps=150, budget=900)
    classifier.add_argument("--labels-dir", type=Path, help="folder holding silver.train.jsonl")
    classifier.set_defaults(handler=run_classifier)
    labels = kinds.add_parser("labels", help="run the silver-labelling strategies (slow)")
    labels.add_argument("--data-dir", type=Path, help="folder holding qa/*.jsonl")
    labels.add_argument("--split", default="train", choices=("train", "dev"))
    labels.add_argument("--per-dataset", type=int, default=10, help="questions per dataset")
    labels.add_argument("--seed", type=int, default=5)
    labels.add_argument("--model", default="local", help="chat model spec (default: local)")
    labels.add_argument("--out", type=Path, help="label JSONL (appended; labelled ids skipped)")
    labels.set_defaults(handler=run_labels)


def _data_dir(args: argparse.Namespace) -> Path:
    from models.training.data import default_data_dir

    return Path(args.data_dir) if args.data_dir else default_data_dir()


def _print(manifest: dict[str, object]) -> int:
    sys.stdout.write(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return 0


def run_evaluator(args: argparse.Namespace) -> int:
    """Train the evaluator and print its manifest."""
    from models.evaluator import ARTIFACT_DIR
    from models.training.train_evaluator import EvaluatorConfig, train_evaluator

    config = EvaluatorConfig(
        steps=args.steps,
        seed=args.seed,
        limit=args.limit,
        time_budget=args.time_budget or None,
        resume=args.resume,
        architecture=args.architecture,
        top_layers=args.top_layers,
        lora_rank=args.lora_rank,
        lr=args.lr,
    )
    out = args.out or ARTIFACT_DIR
    return _print(train_evaluator(_data_dir(args), out, config, calibrate=not args.no_calibrate))


def run_classifier(args: argparse.Namespace) -> int:
    """Train the classifier and print its manifest."""
    from models.classifier import ARTIFACT_DIR
    from models.training.train_classifier import LABELS_DIR, ClassifierConfig, train_classifier

    config = ClassifierConfig(
        steps=args.steps, seed=args.seed, limit=args.limit, time_budget=args.time_budget or None
    )
    labels_dir = args.labels_dir or LABELS_DIR
    out = args.out or ARTIFACT_DIR
    return _print(train_classifier(_data_dir(args), out, config, labels_dir=labels_dir))


def run_labels(args: argparse.Namespace) -> int:
    """Label a seeded per-dataset subset with the three strategies, appending to a JSONL file."""
    from models.chat import load_chat_model
    from models.training.data import load_records, split_files
    from models.training.silver import run_to_file, select_subset
    from models.training.train_classifier import LABELS_DIR

    records = load_records(split_files(_data_dir(args), args.split))
    subset = select_subset(records, args.per_dataset, seed=args.seed)
    out = args.out or LABELS_DIR / f"silver.{args.split}.jsonl"
    added = run_to_file(subset, load_chat_model(args.model, n_ctx=4096), out)
    sys.stdout.write(json.dumps({"labelled": added, "file": str(out)}) + "\n")
    return 0
