"""The documentation set `docqa`: loads, counts, answers in named files, balanced halves."""

import json
from collections import Counter
from pathlib import Path

import pytest

from bench.datasets.check import DATASETS_DIR, answer_in, check_set, document_text
from bench.harness.data import load_questions

SET = DATASETS_DIR / "docqa"
QUESTIONS = SET / "questions.jsonl"


def records() -> list[dict]:
    return [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines()]


def kind(record: dict) -> str:
    if not record["meta"]["answerable"]:
        return "unanswerable"
    return "two-hop" if record["hop"] == "multi" else "single-hop"


def source(record: dict) -> str:
    return record["meta"]["files"][0].split("/")[0]


def test_the_set_loads_with_its_documents():
    questions = load_questions([QUESTIONS])
    assert len(questions) == len(records())
    assert {q.documents for q in questions} == {(SET / "docs").resolve()}


def test_the_checker_passes_the_set():
    report = check_set(QUESTIONS)
    assert report.problems == []


def test_counts_per_kind_meet_the_issue():
    counts = Counter(kind(r) for r in records())
    assert counts["single-hop"] >= 100
    assert counts["two-hop"] >= 25
    assert counts["unanswerable"] >= 25


def test_no_man_pages_among_the_documents():
    files = [p for p in (SET / "docs").rglob("*") if p.is_file()]
    assert files
    assert not [p for p in files if "/man/" in str(p) or p.suffix[1:].isdigit()]


@pytest.mark.parametrize("record", records(), ids=lambda r: r["id"])
def test_an_answer_occurs_in_a_named_document(record):
    if not record["meta"]["answerable"]:
        assert record["answers"] == [] and record["passages"] == []
        assert all((SET / "docs" / name).is_file() for name in record["meta"]["files"])
        return
    texts = [document_text(SET / "docs" / name) for name in record["meta"]["files"]]
    assert any(answer_in(a, text) for a in record["answers"] for text in texts)


def test_halves_are_balanced_per_kind_and_cover_every_source():
    rows = records()
    per_kind = Counter((kind(r), r["split"]) for r in rows)
    for name in ("single-hop", "two-hop", "unanswerable"):
        assert abs(per_kind[(name, "dev")] - per_kind[(name, "test")]) <= 1
    sources = {source(r) for r in rows}
    for split in ("dev", "test"):
        assert {source(r) for r in rows if r["split"] == split} == sources


@pytest.mark.parametrize("split", ["dev", "test"])
def test_half_files_hold_exactly_their_split(split):
    half = [json.loads(line) for line in Path(SET / f"{split}.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in half) == sorted(
        r["id"] for r in records() if r["split"] == split
    )


def test_the_checker_notices_a_half_file_out_of_step(tmp_path):
    (tmp_path / "docs").symlink_to(SET / "docs")
    (tmp_path / "dataset.json").write_text(json.dumps({"documents": "docs"}))
    rows = records()[:3]
    for row, split in zip(rows, ["dev", "test", "test"], strict=True):
        row["split"] = split
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "dev.jsonl").write_text(json.dumps(rows[0]) + "\n")
    assert check_set(path).problems == []
    (tmp_path / "dev.jsonl").write_text(json.dumps(rows[1]) + "\n")
    assert any("dev.jsonl does not hold exactly" in p for p in check_set(path).problems)
