"""Benchmark questions read from any JSONL file in the shared QA schema.

Schema (one object per line): `id`, `dataset`, `hop`, `question`, `answers`, `passages`
(`title`, `text`, `is_supporting`) and an optional `meta`. Nothing here depends on a dataset's
name: gold passages are those marked `is_supporting`, and web knowledge comes from
`meta.crag_web_search_knowledge` wherever a file provides it (PopQA in the CRAG setting).

A file may ship its own documents: a manifest `dataset.json` beside it, `{"documents":
"docs"}`, names the folder (relative to the manifest) that a benchmark run ingests whole,
as a user would, instead of indexing the questions' passages (see `bench/harness/corpus.py`).
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.errors import UserError

__all__ = [
    "MANIFEST",
    "BenchPassage",
    "Question",
    "documents_root",
    "load_questions",
    "web_passages",
]

MANIFEST = "dataset.json"
WEB_KNOWLEDGE_KEY = "crag_web_search_knowledge"
_PIECE_SEPARATOR = " ; "


@dataclass(frozen=True)
class BenchPassage:
    """One passage of the retrieval corpus."""

    title: str
    text: str
    gold: bool = False
    """Marked `is_supporting` by the dataset (a gold paragraph)."""

    @property
    def key(self) -> tuple[str, str]:
        """Return the de-duplication key: title and whitespace-normalised text."""
        return self.title.strip(), " ".join(self.text.split())


@dataclass(frozen=True)
class Question:
    """One benchmark question with its gold answers and its dataset's passages."""

    id: str
    dataset: str
    hop: str
    question: str
    answers: tuple[str, ...]
    passages: tuple[BenchPassage, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    documents: Path | None = field(default=None, compare=False, hash=False)
    """The folder of documents the file ships (its index is built from them), if any."""


def documents_root(path: Path) -> Path | None:
    """Return the documents folder a QA file's manifest names, or None without a manifest.

    Raises:
        UserError: The manifest is not JSON or names a folder that does not exist.
    """
    manifest = path.parent / MANIFEST
    if not manifest.is_file():
        return None
    try:
        folder = json.loads(manifest.read_text(encoding="utf-8")).get("documents")
    except (json.JSONDecodeError, AttributeError) as error:
        raise UserError(f"{manifest}: not a JSON object with a 'documents' folder") from error
    if not folder:
        return None
    root = (manifest.parent / str(folder)).resolve()
    if not root.is_dir():
        raise UserError(f"{manifest}: no documents folder {root}")
    return root


def _question(
    record: dict[str, Any], source: Path, line: int, documents: Path | None = None
) -> Question:
    try:
        passages = tuple(
            BenchPassage(str(p["title"]), str(p["text"]), p.get("is_supporting") is True)
            for p in record.get("passages") or []
        )
        return Question(
            id=str(record["id"]),
            dataset=str(record.get("dataset") or source.name.split(".")[0]),
            hop=str(record.get("hop") or "single"),
            question=str(record["question"]),
            answers=tuple(str(a) for a in record["answers"]),
            passages=passages,
            meta=dict(record.get("meta") or {}),
            documents=documents,
        )
    except (KeyError, TypeError) as error:
        raise UserError(f"{source}:{line}: not in the QA schema ({error!r})") from error


def load_questions(paths: Sequence[Path], *, limit: int | None = None) -> list[Question]:
    """Read the first `limit` questions of each file (all when None), in file order.

    Raises:
        UserError: A file is missing, not JSON lines, or not in the QA schema.
    """
    questions: list[Question] = []
    for path in paths:
        if not path.is_file():
            raise UserError(f"no such data file: {path}")
        taken, documents = 0, documents_root(path)
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if limit is not None and taken >= limit:
                    break
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise UserError(f"{path}:{number}: invalid JSON ({error.msg})") from error
                questions.append(_question(record, path, number, documents))
                taken += 1
    return questions


def web_passages(question: Question) -> list[BenchPassage]:
    """Return the question's web knowledge (`meta.crag_web_search_knowledge`) as passages.

    The knowledge is a list of "Title: text" pieces joined by " ; "; pieces without a title
    take the question's subject title (`meta.s_wiki_title`) when known.
    """
    knowledge = question.meta.get(WEB_KNOWLEDGE_KEY)
    if not isinstance(knowledge, str) or not knowledge.strip():
        return []
    fallback = str(question.meta.get("s_wiki_title") or "web")
    found: list[BenchPassage] = []
    for piece in knowledge.split(_PIECE_SEPARATOR):
        title, sep, text = piece.partition(": ")
        if not sep or len(title) > 120:
            title, text = fallback, piece
        if text.strip():
            found.append(BenchPassage(title.strip(), text.strip()))
    return found
