import json
from pathlib import Path

from bench.harness.data import Question
from bench.suites.answer_confidence import main as confidence_main
from bench.suites.reader_outcomes import choose, outcome_rows, read_outcomes, token_logprobs
from models.answer_check import AnswerCheck


def _question(dataset: str, qid: str) -> Question:
    return Question(id=qid, dataset=dataset, hop="single", question=f"q {qid}", answers=("a",))


def _line(qid: str, question: str, answers: list[tuple[str, float]], **extra: object) -> dict:
    candidates = [
        {
            "text": text,
            "tokens": [[text, -0.1 if acc else -2.0], ["", -0.01]],
            "strips": [[f"{text} is in this strip", 0.9 if acc else -0.2]],
            "acc": acc,
        }
        for text, acc in answers
    ]
    line = {"dataset": "d", "id": qid, "question": question, "crag_action": "Correct"}
    return line | {"candidates": candidates} | extra


def test_choose_takes_the_listed_and_a_fixed_draw_per_dataset() -> None:
    listed = [_question("dev", f"v{i}") for i in range(4)]
    drawn = [_question(name, f"{name}{i}") for name in ("x", "y") for i in range(10)]
    chosen = choose(listed, drawn, ids={"v1", "v3"}, per_file=3, seed=5)
    assert sorted(q.id for q in chosen if q.dataset == "dev") == ["v1", "v3"]
    assert sum(q.dataset == "x" for q in chosen) == 3 == sum(q.dataset == "y" for q in chosen)
    assert chosen == choose(listed, drawn, ids={"v1", "v3"}, per_file=3, seed=5)
    assert chosen != choose(listed, drawn, ids={"v1", "v3"}, per_file=3, seed=6)


def test_token_logprobs_read_the_reply_metadata() -> None:
    metadata = {"logprobs": {"content": [{"token": "A", "logprob": -0.5}, {"token": "x"}]}}
    assert token_logprobs(metadata) == [("A", -0.5)]
    assert token_logprobs({}) == []


def test_rows_take_the_first_candidate_and_side_by_dev_ids() -> None:
    lines = [
        _line("t1", "who is it", [("Ann", 1.0), ("Ann", 1.0)]),
        _line("v1", "who was it", [("Bob", 0.0), ("Cid", 0.0)]),
        _line("t2", "who was it", [("Dan", 1.0)]),  # a train question a dev one repeats
        _line("t3", "where", [("Eve", 1.0)], crag_action="Incorrect"),
        _line("t4", "what", [("", 0.0)]),
        _line("t5", "which", [("NOT FOUND", 0.0), ("Fay", 1.0)]),
    ]
    rows, table, sides = outcome_rows(lines, {"v1"})
    assert [r["id"] for r in rows] == ["t1", "v1", "t2"] and sides == ["fit", "dev", "skip"]
    assert [r["prediction"] for r in rows] == ["Ann", "Bob", "Dan"]
    assert table[0]["agreement"] == 1.0 and table[1]["agreement"] == 0.0
    assert table[2]["agreement_missing"] == 1.0
    assert table[0]["span_mean"] == -0.1 and table[0]["logprob"] == (-0.1 - 0.01) / 2
    assert table[1]["answer_grade"] == -0.2
    assert len(outcome_rows(lines, {"v1"}, all_actions=True)[0]) == 4
    rows, table, sides = outcome_rows(lines, {"v1"}, fit_all_candidates=True)
    assert [r["id"] for r in rows] == ["t1", "t1", "v1", "t2"]  # dev keeps its first alone
    assert sides == ["fit", "fit", "dev", "skip"] and table[1]["agreement"] == 1.0


def test_the_fit_reads_train_outcomes_and_reports_dev(tmp_path: Path, capsys) -> None:
    lines = []
    for i in range(40):
        right = i % 2 == 0
        lines.append(_line(f"t{i}", f"train {i}", [("Ann" if right else "Bob", float(right))]))
        lines.append(_line(f"v{i}", f"dev {i}", [("Ann" if right else "Bob", float(right))]))
    path = tmp_path / "outcomes.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in [*lines, lines[0]]) + "\n")
    ids = tmp_path / "dev-ids.txt"
    ids.write_text("\n".join(f"v{i}" for i in range(40)) + "\n")
    assert len(read_outcomes(path)) == 80
    argv = ["--outcomes", str(path), "--dev-ids", str(ids), "--features", "span_mean", "in_best"]
    assert confidence_main([*argv, "--save", str(tmp_path / "check")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rows"] == {"fit": 40, "dev": 40, "dev_right": 20}
    assert report["dev_auc"] == 1.0
    check = AnswerCheck.load(tmp_path / "check")
    assert check.names == ("span_mean", "in_best")
    manifest = json.loads((tmp_path / "check" / "manifest.json").read_text())
    assert manifest["model_sha256"] == report["model_sha256"] and manifest["dev_auc"] == 1.0
