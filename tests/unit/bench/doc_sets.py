"""What the documentation-set tests read: a set's records and each question's source folder."""

import json
from pathlib import Path
from typing import Any

from bench.datasets.check import answer_in, document_text


def records(questions: Path) -> list[dict[str, Any]]:
    """Return the records of a `questions.jsonl` (or a half's file), in order."""
    return [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines()]


def source(record: dict[str, Any]) -> str:
    """Return the package folder of a question's first named file."""
    return str(record["meta"]["files"][0].split("/")[0])


def check_no_man_pages(folder: Path) -> None:
    """Fail unless the set's `docs/` holds files and none of them is a man page."""
    files = [p for p in (folder / "docs").rglob("*") if p.is_file()]
    assert files
    assert not [p for p in files if "/man/" in str(p) or p.suffix[1:].isdigit()]


def check_answer_in_named_document(folder: Path, record: dict[str, Any]) -> None:
    """Fail unless an answer occurs in a file the question names (none when unanswerable)."""
    if not record["meta"]["answerable"]:
        assert record["answers"] == [] and record["passages"] == []
        assert all((folder / "docs" / name).is_file() for name in record["meta"]["files"])
        return
    texts = [document_text(folder / "docs" / name) for name in record["meta"]["files"]]
    assert any(answer_in(a, text) for a in record["answers"] for text in texts)
