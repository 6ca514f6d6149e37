"""Evaluate the committed judges on any data file in the shared schema (`acrag judges eval`)."""

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.harness.judge_metrics import accuracy, confusion_matrix
from training.calibrate import pair_metrics
from training.classifier_report import (
    chat_report,
    dataset_report,
    hop_mix,
    route_scores,
    routing_outcome,
)
from training.labels import ROUTES, read_label_file, route_labels
from training.route_a import ROUTE_A_FILE, read_route_a

__all__ = ["evaluate_classifier", "evaluate_evaluator", "evaluate_support"]


def evaluate_evaluator(
    records: list[dict[str, Any]],
    *,
    artifact: Path | None = None,
    seed: int = 0,
    docs_dir: Path | None = None,
) -> dict[str, Any]:
    """Score (question, passage) pairs with hard, easy and on-topic distractors; accuracy and AUC.

    Pairs: every relevant passage, one same-question non-relevant passage per relevant one
    (hard) and one other question's passage per question (easy); a score >= 0 means relevant.
    On-topic answer-less negatives (`training.hard_eval`) are reported beside them.
    """
    from models.evaluator import load_evaluator
    from training.hard_eval import topic_report

    evaluator = load_evaluator(artifact)
    result = topic_report(evaluator.score_pairs, records, docs_dir=docs_dir, seed=seed)
    result["thresholds"] = evaluator.thresholds.as_dict() if evaluator.thresholds else None
    return result


def evaluate_classifier(
    records: list[dict[str, Any]],
    *,
    artifact: Path | None = None,
    labels_file: Path | None = None,
    route_a_file: Path = ROUTE_A_FILE,
) -> dict[str, Any]:
    """Compare predicted routes with silver-plus-bias labels, per route and per dataset.

    Also routes the route-A file's dev split (hand-written inputs that need no documents, and
    chatty hard negatives) and gives the route mix per dataset and hop kind
    (`classifier_report`); `classifier_report.markdown_report` renders the result.
    """
    from models.classifier import ARTIFACT_DIR, load_classifier

    classifier = load_classifier(artifact)
    silver = read_label_file(labels_file) if labels_file else {}
    labels: list[tuple[str, str]] = list(route_labels(records, silver))
    predicted = [d.route for d in classifier.classify([r["question"] for r in records])]
    chat = read_route_a(route_a_file, split="dev")
    chat_routes = [d.route for d in classifier.classify([e.text for e in chat])]
    gold = [route for route, _ in labels]
    return {
        "artifact": str(artifact or ARTIFACT_DIR),
        "trained_on": classifier.manifest.get("training_data", {}).get("label_counts"),
        "questions": len(records),
        "labels": {
            src: dict(Counter(r for r, s in labels if s == src)) for src in ("silver", "bias")
        },
        "accuracy": accuracy(gold, predicted),
        "routes": route_scores(gold, predicted),
        "confusion": confusion_matrix(gold, predicted, ROUTES),
        "silver": _silver_report(labels, predicted),
        "datasets": dataset_report(records, labels, predicted),
        "outcome": routing_outcome([r["id"] for r in records], predicted, silver),
        "hop_kinds": hop_mix(records, predicted),
        "route_a": chat_report(chat, chat_routes),
    }


def _silver_report(labels: Sequence[tuple[str, str]], predicted: Sequence[str]) -> dict[str, Any]:
    indices = [i for i, (_, source) in enumerate(labels) if source == "silver"]
    gold, chosen = [labels[i][0] for i in indices], [predicted[i] for i in indices]
    return {
        "questions": len(indices),
        "accuracy": accuracy(gold, chosen) if indices else None,
        "routes": route_scores(gold, chosen),
        "confusion": confusion_matrix(gold, chosen, ROUTES),
    }


def evaluate_support(
    records: list[dict[str, Any]],
    *,
    artifact: Path | None = None,
    labels_file: Path | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Score support pairs built as for training (`support_data`); AUC overall and per kind.

    Pairs: gold answers with their answer-bearing window against wrong answers of the same
    type, wrong spans and windows without the answer, plus the silver readers' right and wrong
    predictions from `labels_file` where it has rows for these questions.
    """
    from models.support import load_support_judge
    from training.calibrate_support import score_support_pairs, support_metrics
    from training.support_data import build_support_pairs, read_silver

    judge = load_support_judge(artifact)
    silver = read_silver([labels_file]) if labels_file and labels_file.is_file() else []
    pairs = build_support_pairs(records, silver=silver, seed=seed)
    scores = score_support_pairs(judge, pairs)
    result: dict[str, Any] = {"all": support_metrics(pairs, scores)}
    for dataset in sorted({p.dataset for p in pairs}):
        indices = [i for i, p in enumerate(pairs) if p.dataset == dataset]
        result[dataset] = pair_metrics(
            [pairs[i].label for i in indices], [scores[i] for i in indices]
        )
    result["thresholds"] = judge.thresholds.as_dict() if judge.thresholds else None
    return result
