"""Measure whether the evaluator separates passages that answer from passages on the same topic.

`topic_pairs` adds, to `acrag judges eval`'s pairs (`data.build_pairs`), the on-topic answer-less
negatives of `hard_negatives`: each gold passage without its answer sentences (`answerless`),
other paragraphs of the same article in the file (`sibling`) and, for documentation sets whose
files are at hand (`docs_dir`), the entries next to the gold one in its file (`neighbour`: the
option described beside the right one). `topic_report` gives AUC per negative kind and on all
of them together (`positive_vs_topic`), plus the evaluator's seconds per pair.
"""

import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from training.answers import answer_in
from training.calibrate import pair_metrics
from training.data import Pair, build_pairs, is_relevant
from training.hard_negatives import hard_negatives, title_index

__all__ = ["doc_neighbours", "sample", "topic_pairs", "topic_report"]

TOPIC_KINDS = ("hard", "answerless", "sibling", "neighbour")


def doc_neighbours(
    record: dict[str, Any], docs_dir: Path, *, radius: int = 3, limit: int = 2
) -> list[str]:
    """Return lines near the gold passage in its documentation file that lack every answer.

    The gold passage's title names its file under `docs_dir`; lines within `radius` lines of
    the first line the gold text starts with are candidates (nearest first). Records whose file
    or gold line cannot be found give none.
    """
    answers, out = record["answers"], []
    for passage in record["passages"]:
        if not is_relevant(passage, answers):
            continue
        path = Path(docs_dir) / passage["title"]
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        head = passage["text"].strip()[:40]
        at = next((i for i, line in enumerate(lines) if head and head in line), None)
        if at is None:
            continue
        for offset in sorted(range(-radius, radius + 1), key=abs)[1:]:
            index = at + offset
            text = lines[index].strip() if 0 <= index < len(lines) else ""
            if len(text) > 20 and text not in out and not answer_in(text, answers):
                out.append(text)
    return out[:limit]


def topic_pairs(
    records: Sequence[dict[str, Any]], *, docs_dir: Path | None = None, seed: int = 0
) -> list[Pair]:
    """Return `build_pairs`' pairs plus on-topic answer-less negatives of the same records."""
    pairs = build_pairs(records, seed=seed)
    by_title = title_index(records)
    for record in records:
        pairs.extend(hard_negatives(record, by_title))
        if docs_dir is not None:
            question, dataset = record["question"], record["dataset"]
            texts = doc_neighbours(record, docs_dir)
            pairs.extend(Pair(question, t, 0, "neighbour", dataset) for t in texts)
    return pairs


def _metrics(
    pairs: Sequence[Pair], scores: Sequence[float], kinds: set[str], dataset: str = ""
) -> Any:
    """Return `pair_metrics` over pairs of `kinds` (of `dataset` if named); None if one-class."""
    indices = [
        i for i, p in enumerate(pairs) if p.kind in kinds and (not dataset or p.dataset == dataset)
    ]
    labels = [pairs[i].label for i in indices]
    if len(set(labels)) < 2:
        return None
    return pair_metrics(labels, [scores[i] for i in indices])


def topic_report(
    score_pairs: Callable[[Sequence[str], Sequence[str]], list[float]],
    records: Sequence[dict[str, Any]],
    *,
    docs_dir: Path | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Score `topic_pairs` and return AUC per negative kind, per dataset and the time per pair.

    `all` and the plain per-dataset figures use `build_pairs`' pairs only (as `acrag judges
    eval` always has, so earlier numbers stay comparable); `all_with_topic` and
    `<dataset>_vs_topic` (relevant passages against every on-topic negative) add the new ones.
    """
    pairs = topic_pairs(records, docs_dir=docs_dir, seed=seed)
    start = time.perf_counter()
    scores = score_pairs([p.question for p in pairs], [p.text for p in pairs])
    seconds = time.perf_counter() - start
    base, topic = {"positive", "hard", "easy"}, {"positive", *TOPIC_KINDS}
    report: dict[str, Any] = {
        "all": _metrics(pairs, scores, base),
        "all_with_topic": _metrics(pairs, scores, base | topic),
        "seconds_per_pair": seconds / max(1, len(pairs)),
    }
    for dataset in sorted({p.dataset for p in pairs}):
        report[dataset] = _metrics(pairs, scores, base, dataset)
        report[f"{dataset}_vs_topic"] = _metrics(pairs, scores, topic, dataset)
    for kind in TOPIC_KINDS:
        report[f"positive_vs_{kind}"] = _metrics(pairs, scores, {"positive", kind})
    report["positive_vs_topic"] = _metrics(pairs, scores, topic)
    report["pairs_by_kind"] = {k: sum(p.kind == k for p in pairs) for k in sorted(base | topic)}
    return report


def sample(records: Sequence[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    """Return the seeded sample `acrag judges eval --limit` uses (all records without a limit)."""
    if limit and limit < len(records):
        return random.Random(0).sample(list(records), limit)
    return list(records)
