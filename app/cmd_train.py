"""`acrag train evaluator|support|classifier|labels`: reproduce the learned judges' artifacts.

Training writes a new artifact folder in the user's data directory unless told otherwise; the
committed artifacts under `models/artifacts/` are replaced only with `--overwrite`.
"""

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from app.cmd_labels import add_labels_parser, data_dir, home_of
from models.errors import UserError

__all__ = ["COMMITTED", "add_parser", "artifact_out", "data_dir", "home_of"]

COMMITTED = Path(__file__).resolve().parents[1] / "models" / "artifacts"
"""The committed artifacts, which training never overwrites unless told."""


def _common(parser: argparse.ArgumentParser, *, steps: int, budget: float) -> None:
    parser.add_argument(
        "--data-dir", type=Path, help="folder holding qa/*.jsonl (default: ../shared/data)"
    )
    parser.add_argument(
        "--out", type=Path, help="artifact folder (default: a new folder in the data directory)"
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an existing artifact (without --out: the committed one)",
    )
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


def _add_evaluator(kinds: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
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
        "--negatives",
        choices=("topic", "hard", "hard-focus", "mixed"),
        default="topic",
        help="training pairs: topic (distractors, other questions' passages, strips; default), "
        "hard (plus on-topic answer-less negatives: gold minus its answer sentences, same-title "
        "paragraphs, more distractors, and answer windows), hard-focus (hard without easy "
        "negatives and strips, to continue a trained evaluator with --resume) or mixed (topic's "
        "pairs at their share plus the on-topic ones)",
    )
    _cross_encoder(evaluator)
    evaluator.set_defaults(handler=run_evaluator)


def _cross_encoder(parser: argparse.ArgumentParser) -> None:
    """Add the cross-encoder options shared by the evaluator and the support judge."""
    parser.add_argument(
        "--top-layers",
        type=int,
        default=0,
        help="cross-encoder: MiniLM top layers trained outright (default 0)",
    )
    parser.add_argument(
        "--lora-rank",
        type=int,
        default=16,
        help="cross-encoder: LoRA rank on every encoder layer; 0 for none (default 16)",
    )
    parser.add_argument(
        "--lr", type=float, default=5e-4, help="cross-encoder learning rate (default 5e-4)"
    )
    parser.add_argument(
        "--resume", type=Path, help="continue training from this artifact folder (use a new --seed)"
    )


def _add_support(kinds: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    support = kinds.add_parser("support", help="train the support judge (Self-RAG's IsSup)")
    _common(support, steps=1200, budget=0)
    support.add_argument(
        "--no-calibrate", action="store_true", help="skip choosing thresholds on the dev files"
    )
    support.add_argument("--labels-dir", type=Path, help="folder holding silver.*.jsonl")
    _cross_encoder(support)
    support.set_defaults(handler=run_support)


def _add_classifier(kinds: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    classifier = kinds.add_parser("classifier", help="train the complexity classifier")
    _common(classifier, steps=150, budget=900)
    classifier.add_argument("--labels-dir", type=Path, help="folder holding silver.train.jsonl")
    classifier.add_argument("--labels", type=Path, help="silver-label JSONL (wins over the dir)")
    classifier.add_argument("--reader", help="use only the labels this reader made")
    classifier.add_argument(
        "--route-a", type=Path, help="hand-written route-A JSONL (default: the committed one)"
    )
    classifier.add_argument(
        "--route-a-repeat",
        type=int,
        help="copies of its train split (default: the balanced class weight; 0 for none)",
    )
    classifier.add_argument(
        "--silver-repeat",
        type=int,
        default=1,
        help="copies of each silver-labelled question (default 1; more weighs outcomes up)",
    )
    classifier.add_argument(
        "--multi-hop-bias",
        choices=("B", "C"),
        default="C",
        help="label of multi-hop questions no route answered (default C, the paper's; B when "
        "IRCoT is no more accurate than single-step for the reader)",
    )
    classifier.add_argument(
        "--drop-guessed-a",
        action="store_true",
        help="do not label A from a right closed-book answer to a question that writes the "
        "answer out (a choice between named options)",
    )
    classifier.set_defaults(handler=run_classifier)


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `train` subcommand."""
    parser = subparsers.add_parser("train", help="train the learned judges")
    kinds = parser.add_subparsers(title="judges", metavar="JUDGE", required=True)
    _add_evaluator(kinds)
    _add_support(kinds)
    _add_classifier(kinds)
    add_labels_parser(kinds)


def artifact_out(kind: str, out: Path | None, *, overwrite: bool, home: Path) -> Path:
    """Return the folder a training run of `kind` writes to.

    Without `out`: the committed folder with `overwrite`, else a new timestamped folder under
    `home/artifacts`. An existing artifact, and anything under the committed folder, is
    replaced only with `overwrite`.

    Raises:
        UserError: The folder would replace an artifact and `overwrite` is not set.
    """
    if out is None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        out = COMMITTED / kind if overwrite else home / "artifacts" / f"{kind}-{stamp}"
    committed = out.resolve().is_relative_to(COMMITTED)
    if not overwrite and (committed or (out / "manifest.json").exists()):
        raise UserError(f"{out} holds an artifact; pass --overwrite to replace it")
    return out


def _print(manifest: dict[str, object], out: Path) -> int:
    sys.stdout.write(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    sys.stderr.write(f"wrote the {manifest.get('kind', 'artifact')} artifact to {out}\n")
    return 0


def _cross_encoder_config(args: argparse.Namespace) -> dict[str, Any]:
    """Return the cross-encoder hyper-parameters the options set."""
    return {
        "steps": args.steps,
        "seed": args.seed,
        "limit": args.limit,
        "time_budget": args.time_budget or None,
        "resume": args.resume,
        "top_layers": args.top_layers,
        "lora_rank": args.lora_rank,
        "lr": args.lr,
    }


def run_evaluator(args: argparse.Namespace) -> int:
    """Train the evaluator and print its manifest."""
    from training.train_evaluator import EvaluatorConfig, train_evaluator

    config = EvaluatorConfig(
        **_cross_encoder_config(args),
        architecture=args.architecture,
        negatives=args.negatives,
    )
    out = artifact_out("evaluator", args.out, overwrite=args.overwrite, home=home_of(args))
    manifest = train_evaluator(data_dir(args), out, config, calibrate=not args.no_calibrate)
    return _print(manifest, out)


def run_support(args: argparse.Namespace) -> int:
    """Train the support judge and print its manifest."""
    from training.train_classifier import LABELS_DIR
    from training.train_support import SupportConfig, train_support

    config = SupportConfig(**_cross_encoder_config(args))
    out = artifact_out("support", args.out, overwrite=args.overwrite, home=home_of(args))
    labels = args.labels_dir or LABELS_DIR
    calibrate = not args.no_calibrate
    manifest = train_support(data_dir(args), out, config, labels_dir=labels, calibrate=calibrate)
    return _print(manifest, out)


def run_classifier(args: argparse.Namespace) -> int:
    """Train the classifier and print its manifest."""
    from training.route_a import ROUTE_A_FILE
    from training.train_classifier import LABELS_DIR, ClassifierConfig, train_classifier

    if args.route_a_repeat is not None and args.route_a_repeat < 0:
        raise UserError("--route-a-repeat must be 0 or more")
    if args.silver_repeat < 1:
        raise UserError("--silver-repeat must be 1 or more")
    config = ClassifierConfig(
        steps=args.steps,
        seed=args.seed,
        limit=args.limit,
        time_budget=args.time_budget or None,
        route_a_repeat=args.route_a_repeat,
        silver_repeat=args.silver_repeat,
        multi_hop_bias=args.multi_hop_bias,
        drop_guessed_a=args.drop_guessed_a,
    )
    labels = args.labels or (args.labels_dir or LABELS_DIR) / "silver.train.jsonl"
    out = artifact_out("classifier", args.out, overwrite=args.overwrite, home=home_of(args))
    manifest = train_classifier(
        data_dir(args),
        out,
        config,
        labels_file=labels,
        reader=args.reader,
        route_a_file=args.route_a or ROUTE_A_FILE,
    )
    return _print(manifest, out)
