import json
from pathlib import Path

import pytest

from models.errors import UserError
from training.labels import answer_in_question, bias_label, read_label_file, route_labels
from training.train_classifier import label_counts

# The oracle rule itself (simplest correct route) is tested once:
# tests/unit/bench/harness/test_oracle.py.


def test_bias_label_follows_the_hop() -> None:
    assert bias_label("single") == "B"
    assert bias_label("multi") == "C"
    with pytest.raises(ValueError, match="hop"):
        bias_label("triple")


def test_route_labels_fall_back_to_dataset_bias() -> None:
    records = [
        {"id": "q1", "hop": "single"},  # silver: A and C correct -> A
        {"id": "q2", "hop": "multi"},  # nothing correct -> bias C
        {"id": "q3", "hop": "single"},  # never run -> bias B
        {"id": "q4", "hop": "multi"},  # only B correct -> B, even on a multi-hop set
    ]
    silver = {
        "q1": {"correct": {"A": True, "B": False, "C": True}},
        "q2": {"correct": {"A": False, "B": False, "C": False}},
        "q4": {"correct": {"A": False, "B": True, "C": False}},
    }
    labels = route_labels(records, silver)
    assert labels == [("A", "silver"), ("C", "bias"), ("B", "bias"), ("B", "silver")]
    assert label_counts(labels) == {"silver": {"A": 1, "B": 1}, "bias": {"B": 1, "C": 1}}


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_label_file_round_trip(tmp_path: Path) -> None:
    rows = [{"id": "x", "correct": {"A": False, "B": True, "C": True}}]
    assert read_label_file(write(tmp_path / "silver.jsonl", rows)) == {"x": rows[0]}
    assert read_label_file(tmp_path / "missing.jsonl") == {}


def test_labels_of_different_readers_are_never_mixed_silently(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "reader": "local", "correct": {"A": True}},
        {"id": "b", "reader": "qwen2.5-coder-0.5b", "correct": {"B": True}},
        {"id": "c", "correct": {"C": True}},  # the old runner recorded no reader
    ]
    path = write(tmp_path / "mixed.jsonl", rows)
    with pytest.raises(UserError, match="several readers"):
        read_label_file(path)
    assert list(read_label_file(path, reader="local")) == ["a"]
    assert list(read_label_file(path, reader="qwen2.5-coder-0.5b")) == ["b"]


def test_benchmark_records_serve_as_a_label_file(tmp_path) -> None:
    def record(qid: str, strategy: str, acc: float, **extra) -> dict:
        base = {"dataset": "nq", "id": qid, "question": f"{qid}?", "model": "qwen", "acc": acc}
        return base | {"strategy": strategy, "drop_gold": 0.0, "error": None} | extra

    records = [
        record("q1", "no-retrieval", 0.0, seconds=0.5, cache_hits=0),
        record("q1", "single", 1.0, seconds=0.2, cache_hits=1),  # replayed: not timed
        record("q1", "ircot", 1.0),
        record("q1", "crag", 0.0),  # not on the ladder
        record("q2", "no-retrieval", 1.0, drop_gold=0.5),  # a degraded index does not label
        record("q2", "single", 0.0),
        record("q2", "ircot", 1.0, error="boom"),
    ]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    rows = read_label_file(path)
    assert rows["q1"]["correct"] == {"A": False, "B": True, "C": True}
    assert rows["q1"]["seconds"] == {"A": 0.5}
    assert rows["q2"]["correct"] == {"B": False} and rows["q1"]["reader"] == "qwen"
    hops = [{"id": "q1", "hop": "single"}, {"id": "q2", "hop": "multi"}]
    assert route_labels(hops, rows) == [("B", "silver"), ("C", "bias")]


def test_the_multi_hop_bias_label_can_be_single_step() -> None:
    records = [{"id": "m1", "hop": "multi"}, {"id": "s1", "hop": "single"}]
    assert route_labels(records, {}) == [("C", "bias"), ("B", "bias")]
    assert route_labels(records, {}, multi_hop_bias="B") == [("B", "bias"), ("B", "bias")]
    silver = {"m1": {"correct": {"A": False, "B": False, "C": True}}}
    assert route_labels(records, silver, multi_hop_bias="B")[0] == ("C", "silver")


@pytest.mark.parametrize(
    ("question", "answers", "written_out"),
    [
        ("Who was born first, Ann Lee or Bo Chan?", ["Bo Chan"], True),
        ("Which film came out first, The Kid or Up?", ["the kid"], True),
        ("Who wrote Annie?", ["Ann"], False),
        ("Where was Ann Lee born?", ["Leeds", ""], False),
    ],
)
def test_answer_in_question_matches_whole_normalised_words(question, answers, written_out) -> None:
    assert answer_in_question(question, answers) is written_out


def test_a_guessed_closed_book_answer_can_be_set_aside() -> None:
    records = [
        {
            "id": "c",
            "hop": "multi",
            "question": "Who was born first, Ann or Bo?",
            "answers": ["Bo"],
        },
        {"id": "k", "hop": "single", "question": "Where is Bo from?", "answers": ["Oslo"]},
    ]
    silver = {
        "c": {"correct": {"A": True, "B": False, "C": True}},
        "k": {"correct": {"A": True}},
    }
    assert route_labels(records, silver) == [("A", "silver"), ("A", "silver")]
    kept = route_labels(records, silver, drop_guessed_a=True)
    assert kept == [("C", "silver"), ("A", "silver")]
    assert silver["c"]["correct"]["A"] is True  # the label rows are not changed
    silver["c"]["correct"]["C"] = False
    assert route_labels(records, silver, drop_guessed_a=True)[0] == ("C", "bias")
