"""On-topic, answer-less negatives: pairs that teach "holds the answer", not "is about it".

The evaluator trained on `data.build_pairs` alone learns topicality: its negatives are other
passages of the question (distractors) and other questions' passages. The pairs here share the
question's topic but not its answer:

- `answerless`: a gold passage with its answer-bearing sentences removed (the remainder no
  longer contains a gold answer; at least one sentence is left);
- `sibling`: another paragraph of the same article (same title) in the data that lacks every
  gold answer;
- `hard` (more of them): the multi-hop sets' distractors, `hard_per_positive` per relevant
  passage instead of one;
- `window+`: positives' answer windows (the answer sentence with one neighbour either side),
  so that the sentence windows graded and kept at run time are learnt as positives.

`kind` on each pair names where it came from, so AUC can be reported per kind
(`training.hard_eval`).
"""

import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from training.answers import answer_in
from training.data import Pair, build_pairs, is_relevant, split_sentences

__all__ = [
    "FOCUS",
    "MIXED",
    "answer_windows",
    "answerless",
    "build_hard_pairs",
    "hard_negatives",
    "siblings",
    "title_index",
]

FOCUS = {"hard_per_positive": 1, "easy_per_question": 0, "strips": False}
"""`build_hard_pairs` options for continuing a trained evaluator on the on-topic pairs alone
(it already tells easy negatives and strips apart; a busy CPU affords few steps)."""

MIXED = {"hard_per_positive": 1, "easy_per_question": 1, "strips": True}
"""`build_hard_pairs` options that keep the shipped recipe's pairs at their share (one distractor
per relevant passage, one other question's passage, strip pairs) and add the on-topic ones: for
continuing the shipped evaluator without trading its distractor AUC for the answer-less one."""

HARD_KINDS = ("hard", "answerless", "sibling")
"""Negative kinds that share the question's topic (`positive` vs these is positive-vs-hard)."""


def answerless(text: str, answers: Sequence[str]) -> str | None:
    """Return `text` without its answer-bearing sentences, or None when nothing fit is left.

    None when no sentence holds an answer, when every sentence does, or when the answer still
    occurs in what is left (it spanned a sentence boundary).
    """
    sentences = split_sentences(text)
    kept = [s for s in sentences if not answer_in(s, answers)]
    if not kept or len(kept) == len(sentences):
        return None
    rest = " ".join(kept)
    return None if answer_in(rest, answers) else rest


def answer_windows(text: str, answers: Sequence[str], *, radius: int = 1) -> list[str]:
    """Return each answer sentence of `text` with `radius` neighbours either side (deduplicated).

    A passage of at most `2 * radius + 1` sentences gives no windows (it is its own window).
    """
    sentences = split_sentences(text)
    if len(sentences) <= 2 * radius + 1:
        return []
    windows = [
        " ".join(sentences[max(0, i - radius) : i + radius + 1])
        for i, sentence in enumerate(sentences)
        if answer_in(sentence, answers)
    ]
    return list(dict.fromkeys(windows))


def title_index(records: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """Return every distinct passage text of `records` by title."""
    index: dict[str, dict[str, None]] = defaultdict(dict)
    for record in records:
        for passage in record["passages"]:
            index[passage["title"]][passage["text"]] = None
    return {title: list(texts) for title, texts in index.items()}


def siblings(
    record: dict[str, Any], by_title: dict[str, list[str]], *, limit: int = 2
) -> list[str]:
    """Return up to `limit` same-title paragraphs of the record's relevant passages (no answer)."""
    own = {p["text"] for p in record["passages"]}
    out: list[str] = []
    for passage in record["passages"]:
        if not is_relevant(passage, record["answers"]):
            continue
        for text in by_title.get(passage["title"], []):
            if text not in own and text not in out and not answer_in(text, record["answers"]):
                out.append(text)
    return out[:limit]


def hard_negatives(
    record: dict[str, Any], by_title: dict[str, list[str]], *, siblings_per_question: int = 2
) -> list[Pair]:
    """Return the on-topic answer-less negatives (`answerless`, `sibling`) of one question."""
    question, dataset, answers = record["question"], record["dataset"], record["answers"]
    pairs: list[Pair] = []
    for passage in record["passages"]:
        if is_relevant(passage, answers):
            rest = answerless(passage["text"], answers)
            if rest:
                pairs.append(Pair(question, rest, 0, "answerless", dataset))
    texts = siblings(record, by_title, limit=siblings_per_question)
    pairs.extend(Pair(question, text, 0, "sibling", dataset) for text in texts)
    return pairs


def _windows(record: dict[str, Any], limit: int) -> list[Pair]:
    question, dataset, answers = record["question"], record["dataset"], record["answers"]
    out: list[Pair] = []
    for passage in record["passages"]:
        if is_relevant(passage, answers):
            texts = answer_windows(passage["text"], answers)[:limit]
            out.extend(Pair(question, text, 1, "window+", dataset) for text in texts)
    return out


def build_hard_pairs(
    records: Sequence[dict[str, Any]],
    *,
    hard_per_positive: int = 2,
    easy_per_question: int = 1,
    strips: bool = True,
    windows_per_passage: int = 1,
    seed: int = 0,
) -> list[Pair]:
    """Build `data.build_pairs`' pairs plus on-topic answer-less negatives and answer windows.

    Args:
        records: Questions in the shared schema (training files only when training).
        hard_per_positive: Same-question distractors per relevant passage.
        easy_per_question: Other questions' passages per question.
        strips: Also add `build_pairs`' strip pairs.
        windows_per_passage: Answer windows (`window+`) per relevant passage.
        seed: Seed for every random choice.
    """
    pairs = build_pairs(
        records,
        hard_per_positive=hard_per_positive,
        easy_per_question=easy_per_question,
        strips=strips,
        seed=seed,
    )
    by_title = title_index(records)
    for record in records:
        pairs.extend(hard_negatives(record, by_title))
        pairs.extend(_windows(record, windows_per_passage))
    random.Random(seed).shuffle(pairs)
    return pairs
