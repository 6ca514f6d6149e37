"""The blind documentation set `docqa2`: loads, counts, answers in named files, balanced halves."""

from collections import Counter

import pytest

from bench.datasets.check import DATASETS_DIR, check_set, question_kind
from bench.harness.data import load_questions
from tests.unit.bench import doc_sets

SET = DATASETS_DIR / "docqa2"
QUESTIONS = SET / "questions.jsonl"
RECORDS = doc_sets.records(QUESTIONS)
SOURCES = {"valgrind", "nodejs", "bc", "ed", "time", "bzip2"}
KINDS = ("single-hop", "two-hop", "unanswerable")


def half(split: str) -> list[dict]:
    return doc_sets.records(SET / f"{split}.jsonl")


def test_the_set_loads_with_its_documents():
    questions = load_questions([QUESTIONS])
    assert len(questions) == len(RECORDS)
    assert {q.documents for q in questions} == {(SET / "docs").resolve()}


def test_ids_and_dataset_name():
    rows = RECORDS
    assert [r["id"] for r in rows] == [f"docqa2-{n:03d}" for n in range(1, len(rows) + 1)]
    assert {r["dataset"] for r in rows} == {"docqa2"}


def test_the_checker_passes_the_set():
    report = check_set(QUESTIONS)
    assert report.problems == []


def test_counts_per_kind_meet_the_brief():
    counts = Counter(question_kind(r) for r in RECORDS)
    assert counts["single-hop"] >= 60
    assert counts["two-hop"] >= 12
    assert counts["unanswerable"] >= 18


def test_sources_are_the_six_packages_and_none_of_docqa():
    folders = {p.name for p in (SET / "docs").iterdir() if p.is_dir()}
    assert folders == SOURCES
    docqa = {p.name for p in (DATASETS_DIR / "docqa" / "docs").iterdir() if p.is_dir()}
    assert not folders & docqa
    assert {doc_sets.source(r) for r in RECORDS} == SOURCES


def test_no_man_pages_among_the_documents():
    doc_sets.check_no_man_pages(SET)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_an_answer_occurs_in_a_named_document(record):
    doc_sets.check_answer_in_named_document(SET, record)


def test_two_hop_questions_cite_two_passages():
    for record in RECORDS:
        if question_kind(record) == "two-hop":
            assert len(record["passages"]) >= 2, record["id"]


def test_halves_are_balanced_per_kind_and_cover_every_source():
    rows = RECORDS
    per_kind = Counter((question_kind(r), r["split"]) for r in rows)
    for name in KINDS:
        assert abs(per_kind[(name, "dev")] - per_kind[(name, "test")]) <= 1
    per_source = Counter((doc_sets.source(r), r["split"]) for r in rows)
    for name in SOURCES:
        assert abs(per_source[(name, "dev")] - per_source[(name, "test")]) <= 1
    for split in ("dev", "test"):
        assert {doc_sets.source(r) for r in rows if r["split"] == split} == SOURCES


@pytest.mark.parametrize("split", ["dev", "test"])
def test_half_files_hold_exactly_their_split(split):
    assert sorted(r["id"] for r in half(split)) == sorted(
        r["id"] for r in RECORDS if r["split"] == split
    )
    by_id = {r["id"]: r for r in RECORDS}
    assert all(r == by_id[r["id"]] for r in half(split))


@pytest.mark.parametrize("split", ["dev", "test"])
def test_every_prefix_of_a_half_is_stratified_by_kind(split):
    rows = half(split)
    totals = Counter(question_kind(r) for r in rows)
    seen: Counter[str] = Counter()
    for n, row in enumerate(rows, start=1):
        seen[question_kind(row)] += 1
        for name in KINDS:
            assert abs(seen[name] - n * totals[name] / len(rows)) <= 1.5
