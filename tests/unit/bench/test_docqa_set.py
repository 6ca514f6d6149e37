"""The documentation set `docqa`: loads, counts, answers in named files, balanced halves."""

import json
from collections import Counter

import pytest

from bench.datasets.check import DATASETS_DIR, check_set, question_kind
from bench.harness.data import load_questions
from tests.unit.bench import doc_sets

SET = DATASETS_DIR / "docqa"
QUESTIONS = SET / "questions.jsonl"
RECORDS = doc_sets.records(QUESTIONS)


def test_the_set_loads_with_its_documents():
    questions = load_questions([QUESTIONS])
    assert len(questions) == len(RECORDS)
    assert {q.documents for q in questions} == {(SET / "docs").resolve()}


def test_the_checker_passes_the_set():
    report = check_set(QUESTIONS)
    assert report.problems == []


def test_counts_per_kind_meet_the_issue():
    counts = Counter(question_kind(r) for r in RECORDS)
    assert counts["single-hop"] >= 100
    assert counts["two-hop"] >= 25
    assert counts["unanswerable"] >= 25


def test_no_man_pages_among_the_documents():
    doc_sets.check_no_man_pages(SET)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_an_answer_occurs_in_a_named_document(record):
    doc_sets.check_answer_in_named_document(SET, record)


def test_halves_are_balanced_per_kind_and_cover_every_source():
    rows = RECORDS
    per_kind = Counter((question_kind(r), r["split"]) for r in rows)
    for name in ("single-hop", "two-hop", "unanswerable"):
        assert abs(per_kind[(name, "dev")] - per_kind[(name, "test")]) <= 1
    sources = {doc_sets.source(r) for r in rows}
    for split in ("dev", "test"):
        assert {doc_sets.source(r) for r in rows if r["split"] == split} == sources


@pytest.mark.parametrize("split", ["dev", "test"])
def test_half_files_hold_exactly_their_split(split):
    half = doc_sets.records(SET / f"{split}.jsonl")
    assert sorted(r["id"] for r in half) == sorted(r["id"] for r in RECORDS if r["split"] == split)


def test_the_checker_notices_a_half_file_out_of_step(tmp_path):
    (tmp_path / "docs").symlink_to(SET / "docs")
    (tmp_path / "dataset.json").write_text(json.dumps({"documents": "docs"}))
    rows = [dict(r) for r in RECORDS[:3]]
    for row, split in zip(rows, ["dev", "test", "test"], strict=True):
        row["split"] = split
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "dev.jsonl").write_text(json.dumps(rows[0]) + "\n")
    assert check_set(path).problems == []
    (tmp_path / "dev.jsonl").write_text(json.dumps(rows[1]) + "\n")
    assert any("dev.jsonl does not hold exactly" in p for p in check_set(path).problems)
