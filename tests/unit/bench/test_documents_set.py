"""A QA file that ships its documents: manifest, corpus, index build, harness, checker."""

import json

import pytest

from bench.datasets.check import answer_in, check_set, main, shipped_sets
from bench.harness.corpus import build_corpus, prepare_home
from bench.harness.data import BenchPassage, load_questions
from bench.harness.evaluate import EvalConfig, run_eval
from models.errors import UserError
from tests.unit.bench.conftest import FakeRunner

DOC = "Glassmere Lighthouse\n\nThe lighthouse was completed in 1887 by Orla Fenwick.\n"


def write_set(folder, rows, *, manifest=True):
    (folder / "docs" / "pkg").mkdir(parents=True)
    (folder / "docs" / "pkg" / "guide.md").write_text(DOC)
    (folder / "docs" / "pkg" / "copyright").write_text("Public domain.\n")
    if manifest:
        (folder / "dataset.json").write_text(json.dumps({"documents": "docs"}))
    path = folder / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def row(qid, answers, passages, *, hop="single"):
    return {
        "id": qid,
        "dataset": "own",
        "hop": hop,
        "split": "test",
        "question": f"question {qid}?",
        "answers": answers,
        "passages": [{"title": t, "text": x, "is_supporting": True} for t, x in passages],
        "meta": {
            "files": sorted({t for t, _ in passages}) or ["pkg/guide.md"],
            "answerable": bool(answers),
        },
    }


GOOD = [
    row("q0", ["1887"], [("pkg/guide.md", "The lighthouse was  completed in 1887")]),
    row("q1", [], []),
]


def test_manifest_attaches_the_documents_folder(tmp_path):
    path = write_set(tmp_path, GOOD)
    questions = load_questions([path])
    assert {q.documents for q in questions} == {(tmp_path / "docs").resolve()}
    assert questions[1].answers == ()


def test_no_manifest_means_passages_as_before(tmp_path):
    path = write_set(tmp_path, GOOD, manifest=False)
    assert load_questions([path])[0].documents is None


def test_manifest_naming_a_missing_folder_is_a_user_error(tmp_path):
    path = write_set(tmp_path, GOOD)
    (tmp_path / "dataset.json").write_text(json.dumps({"documents": "nowhere"}))
    with pytest.raises(UserError, match="no documents folder"):
        load_questions([path])


def test_shipped_documents_replace_passages_and_leave_the_web_empty(tmp_path):
    own = load_questions([write_set(tmp_path, GOOD)])
    corpus = build_corpus(own, extra=[BenchPassage("E", "extra text")])
    assert corpus.documents == ((tmp_path / "docs").resolve(),)
    assert [p.title for p in corpus.local] == ["E"]  # the cited passages are not indexed
    assert corpus.web == ()


def test_digest_follows_the_documents_contents(tmp_path):
    own = load_questions([write_set(tmp_path, GOOD)])
    before = build_corpus(own).digest()
    (tmp_path / "docs" / "pkg" / "guide.md").write_text(DOC + "More.\n")
    assert build_corpus(own).digest() != before


def test_prepare_home_ingests_the_folder_whole(tmp_path):
    calls = []
    own = load_questions([write_set(tmp_path / "set", GOOD)])
    home = prepare_home(build_corpus(own), tmp_path / "idx", ingest=lambda *a: calls.append(a))
    assert calls == [((tmp_path / "set" / "docs").resolve(), home, "documents")]
    assert json.loads((home / "ready.json").read_text())["documents"]


def test_eval_runs_a_documents_set(tmp_path):
    path = write_set(tmp_path / "set", GOOD)
    ingested = []
    config = EvalConfig(
        data=[path], strategies=["single"], out=tmp_path / "out", index_root=tmp_path / "idx"
    )
    runner = FakeRunner()
    runner.run = lambda question, strategy, *, home: FakeRunner.run(
        runner, "q0", strategy, home=home
    )
    records = run_eval(config, runner, ingest=lambda *a: ingested.append(a[0]))
    assert ingested == [(tmp_path / "set" / "docs").resolve()]
    assert [r.answers for r in records] == [["1887"], []]


def test_checker_accepts_a_sound_set(tmp_path):
    report = check_set(write_set(tmp_path, GOOD))
    assert report.ok, report.problems
    assert report.counts == {"single-hop": 1, "unanswerable": 1}


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (row("b", ["1887"], [("pkg/guide.md", "completed in 1888")]), "not found verbatim"),
        (row("b", ["1888"], [("pkg/guide.md", "completed in 1887")]), "no answer alias"),
        (row("b", ["x"], [("pkg/missing.md", "x")]), "no such document"),
        (
            {**row("b", [], []), "passages": [{"title": "pkg/guide.md", "text": "x"}]},
            "unanswerable question must have no passages",
        ),
    ],
)
def test_checker_reports_each_problem(tmp_path, bad, problem):
    report = check_set(write_set(tmp_path, [*GOOD, bad]))
    assert any(problem in p for p in report.problems), report.problems


def test_checker_needs_a_copyright_per_package(tmp_path):
    path = write_set(tmp_path, GOOD)
    (tmp_path / "docs" / "pkg" / "copyright").unlink()
    assert any("no copyright" in p for p in check_set(path).problems)


def test_answer_in_whole_words_or_substring():
    assert answer_in("the 1887", "It was completed in 1887.")
    assert answer_in("system_uid_max", "pkg-config --variable=system_uid_max systemd")
    assert not answer_in("188", "It was completed in 1887.")


def test_shipped_sets_pass_the_checker_and_meet_the_sizes(capsys):
    assert main([]) == 0, capsys.readouterr().out
    usrdoc = next(p for p in shipped_sets() if p.parent.name == "usrdoc")
    counts = check_set(usrdoc).counts
    assert counts["single-hop"] >= 50
    assert counts["two-hop"] >= 15
    assert counts["unanswerable"] >= 15
