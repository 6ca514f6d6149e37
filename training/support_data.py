"""Labelled (question, answer, evidence window) triples for the support judge.

Per question with a gold answer and an answer-bearing window of a gold passage (yes/no
questions, and choices whose answer the question names, have none):
- `positive`: the gold answer (or an alias the window holds) with that window, once as a bare
  answer and once phrased as a short sentence (`answer_forms.phrase`), as readers answer;
- `wrong-answer`: another question's answer of the same crude type, with the same window;
- `wrong-span`: a same-type span of the window that is not the gold answer (the reader that
  copies the wrong name or year out of the right passage);
- `wrong-passage`: the gold answer with a window (of the question's passages, else of its
  dataset's) that does not hold it, preferring windows that share the question's words;
- `reader-right` / `reader-wrong`: silver-label rows (real small-model predictions for routes
  A/B/C, de-duplicated) with the same window, labelled by their `correct` flag.
Synthetic negatives are phrased as a sentence at the same rate as the positives, so phrasing
tells nothing. The classes are balanced by sampling the synthetic negatives evenly across
their kinds (every reader row is kept). Every choice is seeded.
"""

import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness.metrics import normalize_answer
from models.support import evidence_windows, support_input
from models.text import content_tokens
from training.answer_forms import answer_type, phrase, typed_spans
from training.answers import answer_in
from training.data import is_relevant

__all__ = ["SupportPair", "build_support_pairs", "pair_counts", "read_silver", "silver_files"]

_DATASET_SAMPLE = 30
"""Other passages of the dataset searched for a wrong-passage window."""


@dataclass(frozen=True)
class SupportPair:
    """A labelled (question, answer, evidence window); `kind` says how it was made."""

    question: str
    answer: str
    evidence: str
    label: int
    kind: str
    dataset: str

    @property
    def first(self) -> str:
        """Return the cross-encoder's first segment (question and answer)."""
        return support_input(self.question, self.answer)


def silver_files(labels_dir: Path, split: str) -> list[Path]:
    """Return `silver.<split>.jsonl` and every `silver.<split>.*.jsonl` under `labels_dir`."""
    return sorted(
        {*labels_dir.glob(f"silver.{split}.jsonl"), *labels_dir.glob(f"silver.{split}.*.jsonl")}
    )


def read_silver(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Read silver-label rows (`id`, `predictions: {route: text}`, `correct: {route: bool}`)."""
    rows: list[dict[str, Any]] = []
    for path in paths:
        with Path(path).open(encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle if line.strip())
    return rows


def _clashes(text: str, answers: Sequence[str]) -> bool:
    """Return whether `text` holds a gold answer or is part of one."""
    return answer_in(text, answers) or any(answer_in(gold, [text]) for gold in answers)


def _gold_window(record: dict[str, Any], rng: random.Random) -> tuple[str, str] | None:
    """Return (an answer-bearing window of a gold passage, the gold answer it holds)."""
    answers = record["answers"]
    if not answers or answer_type(answers[0]) == "yesno" or answer_in(record["question"], answers):
        return None  # a choice between named options: no single window can back the pick
    relevant = [p["text"] for p in record["passages"] if is_relevant(p, answers)]
    windows = [w for w in evidence_windows(relevant) if answer_in(w, answers)]
    if not windows:
        return None
    window = rng.choice(windows)
    return window, rng.choice([a for a in answers if answer_in(window, [a])])


class _Builder:
    """Pair-making state shared across questions: answer pools and passages by dataset."""

    def __init__(self, records: Sequence[dict[str, Any]], rng: random.Random) -> None:
        self.rng = rng
        self.by_type: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self.by_dataset: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for index, record in enumerate(records):
            if record["answers"]:
                self.by_type[answer_type(record["answers"][0])].append(
                    (index, record["answers"][0])
                )
            for passage in record["passages"]:
                self.by_dataset[record["dataset"]].append((index, passage["text"]))

    def maybe_phrase(self, answer: str, question: str) -> str:
        return phrase(answer, question, self.rng) if self.rng.random() < 0.5 else answer

    def wrong_answer(self, index: int, answer: str, answers: Sequence[str]) -> str | None:
        pool = self.by_type[answer_type(answer)]
        for _ in range(20):
            owner, other = self.rng.choice(pool)
            if owner != index and not _clashes(other, answers):
                return other
        return None

    def wrong_span(self, window: str, answer: str, answers: Sequence[str]) -> str | None:
        spans = [s for s in typed_spans(window, answer_type(answer)) if not _clashes(s, answers)]
        return self.rng.choice(spans) if spans else None

    def wrong_window(self, index: int, record: dict[str, Any]) -> str | None:
        answers, question = record["answers"], content_tokens(record["question"])
        texts = [p["text"] for p in record["passages"]]
        windows = [w for w in evidence_windows(texts) if not answer_in(w, answers)]
        if not windows:
            pool = self.by_dataset[record["dataset"]]
            sample = self.rng.sample(pool, min(len(pool), _DATASET_SAMPLE))
            others = [text for owner, text in sample if owner != index]
            windows = [w for w in evidence_windows(others) if not answer_in(w, answers)]
        if not windows:
            return None
        self.rng.shuffle(windows)
        return max(windows, key=lambda w: len(question & content_tokens(w)))

    def question_pairs(
        self, index: int, record: dict[str, Any], gold: tuple[str, str]
    ) -> list[SupportPair]:
        window, answer = gold
        question, answers, dataset = record["question"], record["answers"], record["dataset"]
        pairs = [
            SupportPair(question, answer, window, 1, "positive", dataset),
            SupportPair(
                question, phrase(answer, question, self.rng), window, 1, "positive", dataset
            ),
        ]
        for kind, wrong in (
            ("wrong-answer", self.wrong_answer(index, answer, answers)),
            ("wrong-span", self.wrong_span(window, answer, answers)),
        ):
            if wrong:
                text = self.maybe_phrase(wrong, question)
                pairs.append(SupportPair(question, text, window, 0, kind, dataset))
        other = self.wrong_window(index, record)
        if other:
            text = self.maybe_phrase(answer, question)
            pairs.append(SupportPair(question, text, other, 0, "wrong-passage", dataset))
        return pairs


def _reader_pairs(
    rows: Iterable[dict[str, Any]], records: dict[str, dict[str, Any]], windows: dict[str, str]
) -> list[SupportPair]:
    pairs: dict[tuple[str, str], SupportPair] = {}
    for row in rows:
        record, window = records.get(row["id"]), windows.get(row["id"])
        if record is None or window is None:
            continue
        for route, prediction in (row.get("predictions") or {}).items():
            text, right = str(prediction or "").strip(), bool(row["correct"].get(route))
            if normalize_answer(text):
                kind = "reader-right" if right else "reader-wrong"
                pair = SupportPair(
                    record["question"], text, window, int(right), kind, record["dataset"]
                )
                pairs.setdefault((row["id"], normalize_answer(text)), pair)
    return list(pairs.values())


def _balance(
    positives: list[SupportPair],
    kept: list[SupportPair],
    pool: list[SupportPair],
    rng: random.Random,
) -> list[SupportPair]:
    """Return positives plus negatives (all of `kept`, then `pool` round-robin by kind), equal."""
    by_kind: dict[str, list[SupportPair]] = defaultdict(list)
    for pair in pool:
        by_kind[pair.kind].append(pair)
    queues = [rng.sample(group, len(group)) for _, group in sorted(by_kind.items())]
    ordered = [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]
    negatives = kept + ordered[: max(len(positives) - len(kept), 0)]
    positives = rng.sample(positives, min(len(positives), len(negatives)))
    return positives + negatives


def build_support_pairs(
    records: Sequence[dict[str, Any]], *, silver: Iterable[dict[str, Any]] = (), seed: int = 0
) -> list[SupportPair]:
    """Build the balanced, shuffled pairs described in the module docstring.

    Args:
        records: Questions in the shared QA schema.
        silver: Silver-label rows for (some of) these questions.
        seed: Seed for every random choice.
    """
    rng = random.Random(seed)
    builder, windows, made = _Builder(records, rng), {}, []
    for index, record in enumerate(records):
        gold = _gold_window(record, rng)
        if gold:
            windows[record["id"]] = gold[0]
            made += builder.question_pairs(index, record, gold)
    made += _reader_pairs(silver, {r["id"]: r for r in records}, windows)
    positives = [p for p in made if p.label]
    readers = [p for p in made if not p.label and p.kind.startswith("reader")]
    synthetic = [p for p in made if not p.label and not p.kind.startswith("reader")]
    pairs = _balance(positives, readers, synthetic, rng)
    rng.shuffle(pairs)
    return pairs


def pair_counts(pairs: Sequence[SupportPair]) -> dict[str, Any]:
    """Return pair counts by label and by kind (for the manifest)."""
    return {
        "pairs": len(pairs),
        "positives": sum(p.label for p in pairs),
        "negatives": sum(1 - p.label for p in pairs),
        "by_kind": dict(sorted(Counter(p.kind for p in pairs).items())),
    }
