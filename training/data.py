"""Reading QA files in the shared schema and building (question, text, label) pairs from them.

Relevance labels: a passage is relevant when `is_supporting` is true; where it is unknown
(`null`, PopQA's retrieved knowledge) a passage counts as relevant when it contains a gold
answer. Strips are one or two sentences of a passage, as CRAG's refinement cuts them; a strip
is relevant when it comes from a relevant passage and contains a gold answer.
"""

import hashlib
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.errors import UserError
from models.text import split_sentences
from training.answers import answer_in

__all__ = [
    "Pair",
    "build_pairs",
    "default_data_dir",
    "files_sha256",
    "is_relevant",
    "load_records",
    "split_files",
    "split_strips",
]


@dataclass(frozen=True)
class Pair:
    """A labelled (question, text) pair; `kind` says how the text was chosen."""

    question: str
    text: str
    label: int
    kind: str
    dataset: str


def default_data_dir() -> Path:
    """Return `../shared/data` beside the repository root (the workspace layout)."""
    return Path(__file__).resolve().parents[2] / "shared" / "data"


def split_files(data_dir: Path, split: str) -> list[Path]:
    """Return the `qa/*.<split>.jsonl` files under `data_dir`, or raise a UserError."""
    files = sorted((Path(data_dir) / "qa").glob(f"*.{split}.jsonl"))
    if not files:
        raise UserError(f"no qa/*.{split}.jsonl files under {data_dir}; pass --data-dir")
    return files


def load_records(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Read every JSON line of `paths` (shared QA schema)."""
    records: list[dict[str, Any]] = []
    for path in paths:
        if not Path(path).is_file():
            raise UserError(f"no data file at {path}")
        with Path(path).open(encoding="utf-8") as handle:
            records.extend(json.loads(line) for line in handle if line.strip())
    return records


def files_sha256(paths: Iterable[Path]) -> str:
    """Return one sha256 over the bytes of `paths` in sorted-name order."""
    digest = hashlib.sha256()
    for path in sorted(Path(p) for p in paths):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def is_relevant(passage: dict[str, Any], answers: Sequence[str]) -> bool:
    """Return whether a passage is relevant to its question (see the module docstring)."""
    flag = passage.get("is_supporting")
    if flag is None:
        return answer_in(passage["text"], answers)
    return bool(flag)


def split_strips(text: str, *, sentences_per_strip: int = 2) -> list[str]:
    """Cut a passage into strips of a few sentences; 1-2 sentence passages stay whole."""
    sentences = split_sentences(text)
    if len(sentences) <= sentences_per_strip:
        return [text.strip()] if text.strip() else []
    step = sentences_per_strip
    return [" ".join(sentences[i : i + step]) for i in range(0, len(sentences), step)]


def _strip_pairs(record: dict[str, Any], rng: random.Random) -> list[Pair]:
    answers, question, dataset = record["answers"], record["question"], record["dataset"]
    pairs: list[Pair] = []
    for passage in record["passages"]:
        relevant = is_relevant(passage, answers)
        strips = split_strips(passage["text"])
        if relevant:
            good = [s for s in strips if answer_in(s, answers)]
            pairs.extend(Pair(question, s, 1, "strip+", dataset) for s in good[:1])
        elif strips:
            pairs.append(Pair(question, rng.choice(strips), 0, "strip-hard", dataset))
    return pairs


def build_pairs(
    records: Sequence[dict[str, Any]],
    *,
    hard_per_positive: int = 1,
    easy_per_question: int = 1,
    strips: bool = False,
    seed: int = 0,
) -> list[Pair]:
    """Build labelled pairs: relevant passages, hard and easy negatives, optionally strips.

    Args:
        records: Questions in the shared schema.
        hard_per_positive: Same-question non-relevant passages per relevant one.
        easy_per_question: Passages of other questions (random) per question.
        strips: Also add strip-level pairs (answer strips of relevant passages vs strips of
            non-relevant ones, capped to balance them).
        seed: Seed for every random choice.
    """
    rng = random.Random(seed)
    pool = [(i, p["text"]) for i, r in enumerate(records) for p in r["passages"]]
    pairs: list[Pair] = []
    for index, record in enumerate(records):
        question, dataset = record["question"], record["dataset"]
        good = [p["text"] for p in record["passages"] if is_relevant(p, record["answers"])]
        bad = [p["text"] for p in record["passages"] if not is_relevant(p, record["answers"])]
        pairs.extend(Pair(question, t, 1, "positive", dataset) for t in good)
        hard = rng.sample(bad, min(len(bad), hard_per_positive * max(1, len(good))))
        pairs.extend(Pair(question, t, 0, "hard", dataset) for t in hard)
        for _ in range(easy_per_question if len(pool) > len(record["passages"]) else 0):
            owner, text = rng.choice(pool)
            while owner == index:
                owner, text = rng.choice(pool)
            pairs.append(Pair(question, text, 0, "easy", dataset))
        if strips:
            strip_pairs = _strip_pairs(record, rng)
            positives = [p for p in strip_pairs if p.label == 1]
            negatives = [p for p in strip_pairs if p.label == 0][: max(1, len(positives))]
            pairs.extend(positives + negatives)
    rng.shuffle(pairs)
    return pairs
