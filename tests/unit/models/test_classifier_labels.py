import json
from pathlib import Path

import pytest

from models.training.labels import bias_label, read_label_file, route_labels, silver_label
from models.training.train_classifier import label_counts


@pytest.mark.parametrize(
    ("correct", "expected"),
    [
        ({"A": True, "B": True, "C": True}, "A"),
        ({"A": False, "B": True, "C": True}, "B"),
        ({"A": True, "B": False, "C": True}, "A"),
        ({"A": False, "B": False, "C": True}, "C"),
        ({"A": False, "B": False, "C": False}, None),
        ({}, None),
    ],
)
def test_silver_label_is_the_simplest_correct_strategy(correct, expected) -> None:
    assert silver_label(correct) == expected


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


def test_label_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "silver.jsonl"
    rows = [{"id": "x", "correct": {"A": False, "B": True, "C": True}}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert read_label_file(path) == {"x": rows[0]}
    assert read_label_file(tmp_path / "missing.jsonl") == {}
