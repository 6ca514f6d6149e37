"""Does the kept evidence *state the answer*? Gold evidence against the same evidence gold-removed.

python -m training.sufficiency --data ../shared/data/qa/*.dev.jsonl [--per-dataset 15]
    [--evaluator DIR ...] [--recall 0.95]

Per question (up to `per-dataset` per dataset, seeded) two evidence sets of `set_size`
passages: the gold passage that holds the answer (plus the question's other gold passages)
filled with on-topic passages without the answer (same-title paragraphs, then the question's
distractors, then other questions' passages of the dataset); and the same set with the answer
passage replaced by itself minus its answer sentences (`hard_negatives.answerless`): on topic,
no answer. A candidate sufficiency score is computed over each set together; AUC says how well
it tells the two apart. Candidates (no LLM, the evaluator only):

- `passage_max`: the best whole-passage evaluator score (CRAG's grade without windows);
- `window_max`: the best over passages and their sentence windows (today's windowed grading,
  `nodes.grade_documents.grading_batch` with the default Context): the best answer window;
- `window_mean_top2`: the mean of the two best windowed grades.

`threshold` is the largest grid value at which at most `1 - recall` of the gold sets score
below it (false "insufficient"), with the share of gold-removed sets it catches.
"""

import argparse
import json
import random
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness.judge_metrics import roc_auc
from training.answers import answer_in
from training.data import is_relevant, load_records
from training.hard_negatives import answerless, title_index

__all__ = ["EvidenceSet", "choose_threshold", "evidence_sets", "main", "score_sets"]

GRID = [round(-0.99 + 0.01 * i, 2) for i in range(199)]


@dataclass(frozen=True)
class EvidenceSet:
    """The passages a reader would see for one question; `label` 1 when they hold the answer."""

    question: str
    passages: tuple[str, ...]
    label: int
    dataset: str


def _fillers(
    record: dict[str, Any], by_title: dict[str, list[str]], pool: list[str], rng: random.Random
) -> list[str]:
    answers = record["answers"]
    own = [p for p in record["passages"] if not is_relevant(p, answers)]
    titles = {p["title"] for p in record["passages"] if is_relevant(p, answers)}
    same = [t for title in sorted(titles) for t in by_title.get(title, [])]
    candidates = same + [p["text"] for p in own] + rng.sample(pool, min(len(pool), 6))
    texts = {p["text"] for p in record["passages"] if is_relevant(p, answers)}
    return [t for t in dict.fromkeys(candidates) if t not in texts and not answer_in(t, answers)]


def evidence_sets(
    records: Sequence[dict[str, Any]], *, per_dataset: int, set_size: int = 3, seed: int = 0
) -> list[EvidenceSet]:
    """Return a gold and a gold-removed evidence set per usable question (see the module)."""
    rng = random.Random(seed)
    by_dataset: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_dataset[record["dataset"]].append(record)
    by_title = title_index(records)
    out: list[EvidenceSet] = []
    for dataset, group in sorted(by_dataset.items()):
        pool = [p["text"] for r in group for p in r["passages"]]
        taken = 0
        for record in rng.sample(group, len(group)):
            answers, question = record["answers"], record["question"]
            gold = [p["text"] for p in record["passages"] if is_relevant(p, answers)]
            holder = next((t for t in gold if answerless(t, answers)), None)
            if holder is None or taken >= per_dataset:
                continue
            others = [t for t in gold if t != holder and not answer_in(t, answers)]
            fill = _fillers(record, by_title, pool, rng)
            kept = [holder, *others][:set_size]
            kept += fill[: set_size - len(kept)]
            removed = [answerless(holder, answers) or "", *kept[1:]]
            out.append(EvidenceSet(question, tuple(kept), 1, dataset))
            out.append(EvidenceSet(question, tuple(removed), 0, dataset))
            taken += 1
    return out


def score_sets(sets: Sequence[EvidenceSet], evaluator: Any) -> list[dict[str, float]]:
    """Return each set's candidate sufficiency scores (one evaluator batch for all sets)."""
    from graphs.context import Context
    from nodes.grade_documents import best_per_passage, grading_batch

    context = Context()
    questions: list[str] = []
    texts: list[str] = []
    spans: list[tuple[int, int, list[int]]] = []
    for item in sets:
        batch, owners = grading_batch(list(item.passages), context, question=item.question)
        spans.append((len(texts), len(item.passages), owners))
        questions += [item.question] * len(batch)
        texts += batch
    unique = list(dict.fromkeys(zip(questions, texts, strict=True)))
    known = dict(zip(unique, evaluator.score_pairs(*zip(*unique, strict=True)), strict=True))
    scores = [known[pair] for pair in zip(questions, texts, strict=True)]
    out = []
    for start, count, owners in spans:
        mine = scores[start : start + len(owners)]
        graded = sorted(best_per_passage(mine, owners), reverse=True)
        out.append(
            {
                "passage_max": max(mine[:count]),
                "window_max": graded[0],
                "window_mean_top2": sum(graded[:2]) / len(graded[:2]),
            }
        )
    return out


def choose_threshold(labels: Sequence[int], scores: Sequence[float], recall: float) -> Any:
    """Return the largest grid cut keeping `recall` of the gold sets; with what it catches."""
    gold = [s for label, s in zip(labels, scores, strict=True) if label]
    removed = [s for label, s in zip(labels, scores, strict=True) if not label]
    fits = [t for t in GRID if sum(s < t for s in gold) <= (1 - recall) * len(gold)]
    cut = max(fits, default=GRID[0])
    return {
        "threshold": cut,
        "false_insufficient": sum(s < cut for s in gold) / max(1, len(gold)),
        "caught": sum(s < cut for s in removed) / max(1, len(removed)),
    }


def report(sets: Sequence[EvidenceSet], scored: Sequence[dict[str, float]], recall: float) -> Any:
    """Return AUC (overall and per dataset) and the chosen threshold of each candidate."""
    labels = [s.label for s in sets]
    out: dict[str, Any] = {"sets": len(sets)}
    for name in scored[0] if scored else []:
        values = [row[name] for row in scored]
        per = {}
        for dataset in sorted({s.dataset for s in sets}):
            idx = [i for i, s in enumerate(sets) if s.dataset == dataset]
            per[dataset] = round(roc_auc([labels[i] for i in idx], [values[i] for i in idx]), 3)
        out[name] = {
            "auc": round(roc_auc(labels, values), 3),
            "per_dataset": per,
            **choose_threshold(labels, values, recall),
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the candidate sufficiency scores of one or more evaluator artifacts."""
    parser = argparse.ArgumentParser(prog="python -m training.sufficiency", description=__doc__)
    parser.add_argument("--data", nargs="+", type=Path, required=True, help="QA JSONL files")
    parser.add_argument("--per-dataset", type=int, default=15, help="questions per dataset")
    parser.add_argument("--set-size", type=int, default=3, help="passages per evidence set")
    parser.add_argument("--recall", type=float, default=0.95, help="gold sets kept by the cut")
    parser.add_argument(
        "--evaluator", nargs="*", type=Path, default=[None], help="artifact folders"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from models.evaluator import load_evaluator

    records = load_records(args.data)
    sets = evidence_sets(records, per_dataset=args.per_dataset, set_size=args.set_size)
    result = {}
    for folder in args.evaluator:
        scored = score_sets(sets, load_evaluator(folder))
        result[str(folder or "committed")] = report(sets, scored, args.recall)
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
