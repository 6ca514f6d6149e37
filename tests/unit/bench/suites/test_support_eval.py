"""Support judges on a reader's own answers: which records count, evidence rebuilt, metrics."""

import json
from dataclasses import asdict
from pathlib import Path

import pytest

import models.support
from app.cli import main
from bench.harness import replay
from bench.harness.records import Record
from bench.suites.support_eval import evaluate_reader_answers, separation
from models.support import TrainedSupportJudge
from tests.fakes import AnswerInWindowLogits, FakeRetriever, local_doc

CAPITALS = {"France": "Paris", "Italy": "Rome", "Spain": "Madrid", "Peru": "Lima"}


def _qa(path: Path) -> Path:
    rows = [
        {
            "id": country,
            "dataset": "capitals",
            "hop": "single",
            "question": f"What is the capital of {country}?",
            "answers": [city],
            "passages": [
                {
                    "title": city,
                    "text": f"{city} is the capital of {country}.",
                    "is_supporting": True,
                }
            ],
        }
        for country, city in CAPITALS.items()
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _record(country: str, prediction: str, *, strategy: str = "single", **extra: object) -> Record:
    right = float(prediction == CAPITALS[country])
    return Record(
        dataset="capitals",
        id=country,
        strategy=strategy,
        question=f"What is the capital of {country}?",
        answers=[CAPITALS[country]],
        prediction=prediction,
        em=right,
        f1=right,
        acc=right,
        model="reader",
        **extra,  # type: ignore[arg-type]
    )


@pytest.fixture
def records(tmp_path: Path) -> Path:
    rows = [
        _record("France", "Paris"),
        _record("Italy", "Rome"),
        _record("Spain", "Barcelona"),  # invented
        _record("Peru", "Cusco"),  # invented
        _record("Peru", "I could not find it.", strategy="single-other"),  # another strategy
        _record("Spain", "Seville", strategy="crag-correct", abstained=True),  # abstained
    ]
    path = tmp_path / "run" / "records.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(asdict(r)) + "\n" for r in rows))
    return path


@pytest.fixture(autouse=True)
def fake_trained(monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = {"thresholds": {"supported": 0.5, "unsupported": -0.3}}
    judge = TrainedSupportJudge(AnswerInWindowLogits(), manifest)
    monkeypatch.setattr(models.support, "load_support_judge", lambda artifact=None: judge)


def test_answered_single_records_are_judged_against_their_own_passages(records, tmp_path):
    qa = _qa(tmp_path / "capitals.dev.jsonl")
    report = evaluate_reader_answers([records], data=[qa], evidence="own", index_root=tmp_path)
    assert (report["answers"], report["right"]) == (4, 2)
    trained = report["trained"]
    assert trained["auc"] == 1.0 and trained["false_abstention"] == 0.0 and trained["caught"] == 1.0
    assert trained["levels"] == {
        "right": {"full": 2, "partial": 0, "none": 0},
        "wrong": {"full": 0, "partial": 0, "none": 2},
    }
    assert set(report) >= {"heuristic", "by_model"} and "llm" not in report
    assert report["by_model"]["reader"]["trained"]["auc"] == 1.0
    assert "confidence" not in report  # the records carry no answer log-probabilities


def test_the_readers_own_confidence_is_judged_when_records_carry_it(tmp_path):
    qa = _qa(tmp_path / "capitals.dev.jsonl")
    rows = [
        _record("France", "Paris", logprob=-0.1),
        _record("Italy", "Rome", logprob=-1.5),  # right but unsure
        _record("Spain", "Barcelona", logprob=-0.9),
        _record("Peru", "Cusco", logprob=-2.0),
    ]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(asdict(r)) + "\n" for r in rows))
    report = evaluate_reader_answers([path], data=[qa], evidence="own", index_root=tmp_path)
    confidence = report["confidence"]
    assert confidence["auc"] == 0.75  # 3 of the 4 right-wrong pairs ordered right
    assert (confidence["false_abstention"], confidence["caught"]) == (0.5, 1.0)


def test_retrieved_evidence_uses_the_runs_files_and_retrieval_settings(
    records, tmp_path, monkeypatch
):
    qa = _qa(tmp_path / "capitals.dev.jsonl")
    run = {"data": [str(qa)], "seed": 0, "contexts": {"single": {"top_k": 4}}}
    (records.parent / "run.json").write_text(json.dumps(run))
    docs = [local_doc(f"{c} is the capital of {k}.", title=c) for k, c in CAPITALS.items()]
    built = []

    def fake_retriever(run_info, strategy, files, share, root):
        built.append((strategy, files, share, run_info["contexts"][strategy]["top_k"]))
        return FakeRetriever(documents=docs, k=4, queries=[])

    monkeypatch.setattr(replay, "retriever", fake_retriever)
    report = evaluate_reader_answers([records], index_root=tmp_path)
    assert built == [("single", [qa.resolve()], 0.0, 4)]
    assert report["evidence"] == "retrieved" and report["trained"]["auc"] == 1.0


def test_separation_gives_an_interval_around_the_auc() -> None:
    found = separation([1, 1, 0, 0, 1, 0], [0.9, 0.8, 0.1, 0.3, 0.2, 0.4])
    assert found["auc"] == pytest.approx(7 / 9)
    low, high = found["auc_95"]
    assert 0.0 <= low <= found["auc"] <= high <= 1.0


def test_judges_eval_prints_the_reader_answer_report(records, tmp_path, capsys) -> None:
    qa = _qa(tmp_path / "capitals.dev.jsonl")
    argv = ["judges", "eval", "--only", "support", "--records", str(records)]
    assert main([*argv, "--data", str(qa), "--evidence", "own"]) == 0
    report = json.loads(capsys.readouterr().out)["support_reader_answers"]
    assert report["trained"]["auc"] == 1.0
    assert main(["judges", "eval", "--only", "evaluator", "--records", str(records)]) == 2
    assert "--only support" in capsys.readouterr().err
