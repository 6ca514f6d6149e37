"""The support judge's training pairs: typed wrong answers, clean negatives, balance, train only."""

import json
from collections import Counter
from pathlib import Path

import pytest

from models.artifact import WEIGHTS
from models.errors import UserError
from training import train_support as training
from training.answer_forms import answer_type, phrase, typed_spans
from training.answers import answer_in
from training.support_data import SupportPair, build_support_pairs, silver_files
from training.train_support import SupportConfig, train_support

ANSWERS = [
    ("When was the bridge of town {i} opened?", "{y}", "date"),
    ("How many people live in town {i}?", "{n} thousand", "number"),
    ("Who founded town {i}?", "{name}", "name"),
    ("What is town {i} known for?", "{thing} weaving", "other"),
]
NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]
THINGS = ["basket", "carpet", "silk", "wool", "linen"]


def _record(i: int, split: str = "train") -> dict[str, object]:
    template, answer, _ = ANSWERS[i % len(ANSWERS)]
    values = {"i": i, "y": 1800 + i, "n": 10 + i, "name": NAMES[i % 5], "thing": THINGS[i % 5]}
    gold = answer.format(**values)
    return {
        "id": f"{split}-{i}",
        "dataset": "towns",
        "hop": "single",
        "split": split,
        "question": template.format(i=i),
        "answers": [gold],
        "passages": [
            {
                "title": f"Town {i}",
                "text": f"Town {i} lies on a river. Its record names {gold} in it. "
                f"Visitors also meet Mayor Rowan Price {i} there in 1700.",
                "is_supporting": True,
            },
            {
                "title": f"Other {i}",
                "text": f"Town {i} has a market. The market sells bread and fish on Fridays.",
                "is_supporting": False,
            },
        ],
    }


RECORDS = [_record(i) for i in range(20)]


def _gold(pair: SupportPair) -> list[str]:
    return next(r["answers"] for r in RECORDS if r["question"] == pair.question)  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("29 July 1943", "date"),
        ("1837", "date"),
        ("23 episodes", "number"),
        ("two hundred", "number"),
        ("Sir Rowland Hill", "name"),
        ("One Minute To Play", "name"),
        ("rock music", "other"),
        ("yes", "yesno"),
    ],
)
def test_answer_types(answer: str, kind: str) -> None:
    assert answer_type(answer) == kind


def test_typed_spans_find_dates_numbers_and_names_without_sentence_openers() -> None:
    text = "The Grind is a 1916 film by John B. O'Brien. In March 1917 it had 23 prints."
    assert typed_spans(text, "date") == ["1916", "March 1917"]
    assert "23" in typed_spans(text, "number")
    assert typed_spans(text, "name")[:2] == ["Grind", "John B. O'Brien"]
    assert typed_spans(text, "other") == []


def test_phrasing_keeps_the_answer() -> None:
    import random

    rng = random.Random(0)
    sentences = {phrase("Ada Lovelace", "who wrote the first program?", rng) for _ in range(20)}
    assert all("Ada Lovelace" in s and s.endswith(".") for s in sentences)
    assert "Ada Lovelace wrote the first program." in sentences


def test_wrong_answers_have_the_gold_type_and_negatives_never_hold_the_gold() -> None:
    pairs = build_support_pairs(RECORDS, seed=3)
    golds = {r["answers"][0]: answer_type(r["answers"][0]) for r in RECORDS}  # type: ignore[index]
    wrong = [p for p in pairs if p.kind == "wrong-answer"]
    assert wrong
    for pair in wrong:
        used = [g for g in golds if g in pair.answer]
        assert used and golds[used[0]] == answer_type(_gold(pair)[0])
    for pair in pairs:
        if pair.label == 0 and pair.kind != "wrong-passage":
            assert not answer_in(pair.answer, _gold(pair))
        if pair.kind == "wrong-passage":
            assert not answer_in(pair.evidence, _gold(pair))
            assert answer_in(pair.answer, _gold(pair))
        if pair.label == 1:
            assert answer_in(pair.evidence, _gold(pair)) and answer_in(pair.answer, _gold(pair))


def test_pairs_are_balanced_seeded_and_of_every_kind() -> None:
    pairs = build_support_pairs(RECORDS, seed=3)
    labels = Counter(p.label for p in pairs)
    assert labels[0] == labels[1] > 0
    assert {p.kind for p in pairs} == {"positive", "wrong-answer", "wrong-span", "wrong-passage"}
    assert pairs == build_support_pairs(RECORDS, seed=3)
    assert pairs != build_support_pairs(RECORDS, seed=4)
    assert len({(p.first, p.evidence) for p in pairs}) == len(pairs)


def test_yes_no_and_named_choice_questions_make_no_pairs() -> None:
    choice = {**_record(1), "question": "Which came first, 1811 or 1901?", "answers": ["1811"]}
    yes_no = {**_record(2), "answers": ["yes"]}
    assert build_support_pairs([choice, yes_no], seed=0) == []


def test_silver_rows_add_the_readers_right_and_wrong_answers_once() -> None:
    gold = RECORDS[2]["answers"][0]  # type: ignore[index]
    row = {
        "id": "train-2",
        "predictions": {"A": "It was Charles Babbage.", "B": f"{gold}.", "C": f"{gold}."},
        "correct": {"A": False, "B": True, "C": True},
    }
    pairs = build_support_pairs(RECORDS, silver=[row], seed=3)
    readers = [p for p in pairs if p.kind.startswith("reader")]
    assert sorted((p.kind, p.label) for p in readers) == [("reader-right", 1), ("reader-wrong", 0)]
    assert all(answer_in(p.evidence, [gold]) for p in readers)


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_training_reads_train_questions_and_train_labels_only(tmp_path, monkeypatch) -> None:
    data, labels = tmp_path / "data", tmp_path / "labels"
    _write(data / "qa" / "towns.train.jsonl", RECORDS)
    _write(data / "qa" / "towns.dev.jsonl", [_record(i, "dev") for i in range(100, 110)])
    guess = {"correct": {"A": False}}
    _write(labels / "silver.dev.jsonl", [{"id": "dev-100", "predictions": {"A": "Dev"}, **guess}])
    train_row = {"id": "train-1", "predictions": {"A": "Train guess"}, **guess}
    _write(labels / "silver.train.reader.jsonl", [train_row])
    seen: list[tuple[str, str]] = []

    def fake_fit(first, second, labels_, out_dir, config, *, kind):
        seen.extend(zip(first, second, strict=True))
        out_dir.mkdir(parents=True)
        (out_dir / WEIGHTS).write_bytes(b"weights")
        return {}

    monkeypatch.setattr(training, "train_cross_encoder", fake_fit)
    manifest = train_support(
        data, tmp_path / "out", SupportConfig(), labels_dir=labels, calibrate=False
    )
    asked = {tuple(first.split(" [SEP] ")) for first, _ in seen}
    assert {q for q, _ in asked} <= {r["question"] for r in RECORDS}  # no dev question
    assert "Train guess" in {a for _, a in asked} and "Dev" not in {a for _, a in asked}
    assert manifest["training_data"]["files"] == ["towns.train.jsonl"]
    assert manifest["training_data"]["silver_files"] == ["silver.train.reader.jsonl"]
    assert manifest["training_data"]["positives"] == manifest["training_data"]["negatives"]
    assert silver_files(labels, "train") == [labels / "silver.train.reader.jsonl"]


def test_training_refuses_files_that_hold_other_splits(tmp_path) -> None:
    _write(tmp_path / "qa" / "towns.train.jsonl", [_record(1, "dev")])
    with pytest.raises(UserError, match="train on train only"):
        train_support(tmp_path, tmp_path / "out", SupportConfig(), labels_dir=tmp_path)
