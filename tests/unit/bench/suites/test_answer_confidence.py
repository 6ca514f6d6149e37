import json
from pathlib import Path

from bench.suites.answer_confidence import features, fit_and_report, load_rows, split_of


def _row(question: str, prediction: str, acc: float, logprob: float, **extra: object) -> dict:
    return {
        "model": "m",
        "strategy": "single",
        "question": question,
        "prediction": prediction,
        "acc": acc,
        "logprob": logprob,
        "best_score": 0.5,
        "error": None,
        **extra,
    }


def test_rows_skip_other_readers_abstentions_errors_and_duplicates(tmp_path: Path) -> None:
    rows = [
        _row("who", "Ann", 1, -0.1),
        _row("who", "ann", 1, -0.1),  # same answer once normalised
        _row("who", "Bob", 0, -2.0, model="other"),
        _row("who", "Cid", 0, -2.0, abstained=True),
        _row("who", "Dan", 0, -2.0, error="boom"),
    ]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert [r["prediction"] for r in load_rows([path], "m")] == ["Ann"]


def test_features_read_shape_and_echo() -> None:
    echo = features(_row("when was the flash made", "the flash", 0, -1.0))
    year = features(_row("when was the flash made", "in 2014", 1, -0.1))
    assert echo["in_question"] == 1.0 and year["in_question"] == 0.0
    assert year["type_match"] == 1.0 and echo["type_match"] == 0.0
    missing = features({**_row("who", "Ann", 1, 0.0), "logprob": None})
    assert missing["logprob_missing"] == 1.0


def test_split_is_by_question_and_stable() -> None:
    assert split_of("Who wrote it?", 0.4) == split_of("who wrote it?", 0.4)
    sides = {split_of(f"question {i}", 0.4) for i in range(50)}
    assert sides == {"fit", "dev"}


def test_a_signal_that_tracks_correctness_gets_a_high_dev_auc() -> None:
    rows = []
    for i in range(200):
        right = i % 2
        rows.append(_row(f"question {i}", f"answer {i}", right, -0.1 if right else -2.5))
    result = fit_and_report(rows, dev_share=0.4)
    assert result["dev_auc"] > 0.95
    assert result["rows"]["fit"] + result["rows"]["dev"] == 200


def test_another_readers_dev_answers_are_reported_apart_and_never_fit() -> None:
    rows = []
    for i in range(300):
        right = i % 2
        reader = "other" if i % 3 == 0 else "m"
        logprob = -0.1 if right else -2.5
        if reader == "other":  # the other reader's signal runs the other way
            logprob = -2.5 if right else -0.1
        rows.append(_row(f"question {i}", f"answer {i}", right, logprob, model=reader))
    result = fit_and_report(rows, dev_share=0.4, fit_model="m")
    assert result["dev_auc"] > 0.95
    other = result["other_readers"]["other"]
    assert other["auc"] < 0.05 and other["rows"] == sum(
        1 for r in rows if r["model"] == "other" and split_of(r["question"], 0.4) == "dev"
    )
    assert result["rows"]["fit"] + result["rows"]["dev"] == 200


def test_chosen_columns_of_a_given_table_are_fit() -> None:
    rows = [_row(f"q {i}", "a", i % 2, -1.0) for i in range(200)]
    table = [{"x": float(i % 2), "noise": 0.0} for i in range(200)]
    result = fit_and_report(rows, table=table, names=["x"])
    assert list(result["coefficients"]) == ["x"] and result["dev_auc"] == 1.0
