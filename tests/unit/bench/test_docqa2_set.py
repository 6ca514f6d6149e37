"""The blind documentation set `docqa2`: loads, counts, answers in named files, balanced halves."""

import json
from collections import Counter

import pytest

from bench.datasets.check import DATASETS_DIR, answer_in, check_set, document_text
from bench.harness.data import load_questions

SET = DATASETS_DIR / "docqa2"
QUESTIONS = SET / "questions.jsonl"
SOURCES = {"valgrind", "nodejs", "bc", "ed", "time", "bzip2"}
KINDS = ("single-hop", "two-hop", "unanswerable")


def records() -> list[dict]:
    return [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines()]


def half(split: str) -> list[dict]:
    text = (SET / f"{split}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


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


def test_ids_and_dataset_name():
    rows = records()
    assert [r["id"] for r in rows] == [f"docqa2-{n:03d}" for n in range(1, len(rows) + 1)]
    assert {r["dataset"] for r in rows} == {"docqa2"}


def test_the_checker_passes_the_set():
    report = check_set(QUESTIONS)
    assert report.problems == []


def test_counts_per_kind_meet_the_brief():
    counts = Counter(kind(r) for r in records())
    assert counts["single-hop"] >= 60
    assert counts["two-hop"] >= 12
    assert counts["unanswerable"] >= 18


def test_sources_are_the_six_packages_and_none_of_docqa():
    folders = {p.name for p in (SET / "docs").iterdir() if p.is_dir()}
    assert folders == SOURCES
    docqa = {p.name for p in (DATASETS_DIR / "docqa" / "docs").iterdir() if p.is_dir()}
    assert not folders & docqa
    assert {source(r) for r in records()} == SOURCES


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


def test_two_hop_questions_cite_two_passages():
    for record in records():
        if kind(record) == "two-hop":
            assert len(record["passages"]) >= 2, record["id"]


def test_halves_are_balanced_per_kind_and_cover_every_source():
    rows = records()
    per_kind = Counter((kind(r), r["split"]) for r in rows)
    for name in KINDS:
        assert abs(per_kind[(name, "dev")] - per_kind[(name, "test")]) <= 1
    per_source = Counter((source(r), r["split"]) for r in rows)
    for name in SOURCES:
        assert abs(per_source[(name, "dev")] - per_source[(name, "test")]) <= 1
    for split in ("dev", "test"):
        assert {source(r) for r in rows if r["split"] == split} == SOURCES


@pytest.mark.parametrize("split", ["dev", "test"])
def test_half_files_hold_exactly_their_split(split):
    assert sorted(r["id"] for r in half(split)) == sorted(
        r["id"] for r in records() if r["split"] == split
    )
    by_id = {r["id"]: r for r in records()}
    assert all(r == by_id[r["id"]] for r in half(split))


@pytest.mark.parametrize("split", ["dev", "test"])
def test_every_prefix_of_a_half_is_stratified_by_kind(split):
    rows = half(split)
    totals = Counter(kind(r) for r in rows)
    seen: Counter[str] = Counter()
    for n, row in enumerate(rows, start=1):
        seen[kind(row)] += 1
        for name in KINDS:
            assert abs(seen[name] - n * totals[name] / len(rows)) <= 1.5
