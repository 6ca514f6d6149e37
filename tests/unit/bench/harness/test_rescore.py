"""Rescoring a run's recorded best scores offline: the retrieval rebuilt, graded with windows."""

import json
from dataclasses import asdict
from pathlib import Path

import pytest

import graphs.deps
from bench.harness import replay
from bench.harness.records import Record
from bench.harness.replay import Replay
from bench.harness.rescore import rescore, summary
from bench.suites.crag_sweep import chosen_records, main
from models.errors import UserError
from tests.fakes import FakeRetriever, FirstWordsEvaluator, local_doc

FILLER = "The city has many old bridges. Its river floods in spring. Tourists come in summer."
HIDDEN = f"{FILLER} Paris is the capital of France. {FILLER}"
"""The answer sits past the first 12 words, all `FirstWordsEvaluator` reads of it whole."""
QUESTION = "What is the capital of France?"


def _record(strategy: str, *, acc: float, best: float | None, **extra: object) -> Record:
    return Record(
        dataset="d",
        id="france",
        strategy=strategy,
        question=QUESTION,
        answers=["Paris"],
        prediction="Paris" if acc else "Lyon",
        em=acc,
        f1=acc,
        acc=acc,
        best_score=best,
        **extra,  # type: ignore[arg-type]
    )


RECORDS = [
    _record("crag-correct", acc=1.0, best=-0.9),  # the local passage holds the answer
    _record("crag-incorrect", acc=0.0, best=-0.9),
    _record("crag-ambiguous", acc=1.0, best=-0.9),
    _record("no-retrieval", acc=0.0, best=None),  # route A: nothing graded, nothing to rescore
]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run folder (records and run.json) whose retriever returns the hidden-answer passage."""
    qa = tmp_path / "d.dev.jsonl"
    qa.write_text(json.dumps({"id": "france", "question": QUESTION, "answers": ["Paris"]}))
    folder = tmp_path / "run"
    folder.mkdir()
    contexts = {"crag-correct": {"top_k": 2, "strip_sentences": 2, "upper_threshold": -1.0}}
    (folder / "run.json").write_text(json.dumps({"data": [str(qa)], "contexts": contexts}))
    path = folder / "records.jsonl"
    path.write_text("".join(json.dumps(asdict(r)) + "\n" for r in RECORDS))
    built = []

    def fake_retriever(run_info, strategy, files, share, root):
        built.append((strategy, run_info["contexts"].get(strategy, {}).get("top_k")))
        docs = [local_doc(HIDDEN, title="Paris"), local_doc(FILLER, title="Rivers")]
        return FakeRetriever(documents=docs, k=2, queries=[])

    monkeypatch.setattr(replay, "retriever", fake_retriever)
    return path


def test_rescoring_replaces_best_score_and_changes_the_replayed_action(run, tmp_path):
    evaluator = FirstWordsEvaluator(("Paris",))
    assert chosen_records(RECORDS, 0.5, -0.5)[0].strategy == "crag-incorrect"  # as recorded
    rescored, questions = rescore(RECORDS, Replay(run, index_root=tmp_path), evaluator)
    assert [r.best_score for r in rescored] == [0.9, 0.9, 0.9, None]
    assert chosen_records(rescored, 0.5, -0.5)[0].strategy == "crag-correct"
    assert [(r.strategy, r.acc) for r in rescored] == [(r.strategy, r.acc) for r in RECORDS]
    (only,) = questions.values()
    assert (only.recorded, only.whole, only.windows) == (-0.9, -0.9, 0.9)
    assert len(evaluator.batches) == 1  # the forced actions share one retrieval; A has none
    assert evaluator.batches[0][:2] == [HIDDEN, FILLER]  # the passages whole, then windows


def test_summary_counts_the_changed_scores_and_shows_both_action_mixes(run, tmp_path):
    _, questions = rescore(
        RECORDS, Replay(run, index_root=tmp_path), FirstWordsEvaluator(("Paris",))
    )
    text = summary(questions, upper=0.5, lower=-0.5)
    assert "windows raised the best score of 1." in text
    assert "Of the 1 with a recorded best score, 1 changed; graded whole today, 1 score" in text
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("|")}
    assert rows["recorded"].rstrip(" |").endswith("0% | 0% | 100%")  # Incorrect
    assert rows["with windows (today)"].rstrip(" |").endswith("100% | 0% | 0%")  # Correct
    assert "+0.900" in rows["with windows (today)"]


def test_a_run_without_run_json_cannot_be_rescored(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text("")
    with pytest.raises(UserError, match="run.json"):
        rescore(RECORDS, Replay(path, index_root=tmp_path), FirstWordsEvaluator())


def test_sweep_cli_rescores_before_the_sweep(run, tmp_path, monkeypatch, capsys):
    evaluator = FirstWordsEvaluator(("Paris",))
    monkeypatch.setattr(graphs.deps, "make_evaluator", lambda context: evaluator)
    argv = [str(run), "--rescore", "--home", str(tmp_path), "--upper", "0.5", "--lower", "-0.5"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "windows raised the best score of 1." in out
    row = next(line for line in out.splitlines() if line.startswith("| all "))
    assert [c.strip() for c in row.strip("|").split("|")][2:5] == ["100%", "0%", "0%"]
