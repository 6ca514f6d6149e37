"""Training the classifier: the route-A split joins the labels, counted in the manifest."""

import json
from collections import Counter
from pathlib import Path

import pytest
import torch

from training import train_classifier as training
from training.train_classifier import ClassifierConfig, label_counts, training_set

RECORDS = [
    {"id": f"s{i}", "dataset": "nq", "hop": "single", "question": f"Who wrote book {i}?"}
    for i in range(6)
] + [
    {"id": f"m{i}", "dataset": "hotpotqa", "hop": "multi", "question": f"Which is older, {i}?"}
    for i in range(3)
]
CHAT = [
    {"text": "hello", "route": "A", "kind": "greeting", "split": "train"},
    {"text": "thanks!", "route": "A", "kind": "thanks", "split": "train"},
    {"text": "thanks! and who designed it?", "route": "B", "kind": "thanks", "split": "train"},
    {"text": "bye", "route": "A", "kind": "farewell", "split": "dev"},
]


def write(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_train_split_is_added_repeat_times_and_counted(tmp_path) -> None:
    chat_file = write(tmp_path / "route_a.jsonl", CHAT)
    data = training_set(RECORDS, {}, route_a_file=chat_file, repeat=3)
    assert Counter(data.texts[len(RECORDS) :]) == {
        "hello": 3,
        "thanks!": 3,
        "thanks! and who designed it?": 3,
    }
    assert "bye" not in data.texts  # the dev split stays out
    assert label_counts(data.labels) == {
        "silver": {},
        "bias": {"B": 6, "C": 3},
        "route_a": {"A": 6, "B": 3},
    }
    assert data.route_a["examples"] == {"A": 2, "B": 1}
    assert data.route_a["repeat"] == 3 and data.route_a["file"] == "route_a.jsonl"


def test_the_default_repeat_is_balanced_and_zero_leaves_route_a_out(tmp_path) -> None:
    chat_file = write(tmp_path / "route_a.jsonl", CHAT)
    # 9 questions + 3 examples, 2 of them A: 12 / (3 * 2) = 2 copies
    assert training_set(RECORDS, {}, route_a_file=chat_file, repeat=None).route_a["repeat"] == 2
    for off in (
        training_set(RECORDS, {}, route_a_file=chat_file, repeat=0),
        training_set(RECORDS, {}, route_a_file=None, repeat=None),
    ):
        assert off.texts == [r["question"] for r in RECORDS]
        assert off.route_a == {"file": None, "repeat": 0}
        assert "route_a" not in label_counts(off.labels)


def test_silver_labelled_questions_can_weigh_more_than_bias_labelled_ones() -> None:
    silver = {"s1": {"correct": {"A": True}}, "m0": {"correct": {"A": False, "B": True}}}
    data = training_set(RECORDS, silver, route_a_file=None, repeat=None, silver_repeat=3)
    assert Counter(data.texts)["Who wrote book 1?"] == 3
    assert Counter(data.texts)["Which is older, 0?"] == 3
    assert Counter(data.texts)["Who wrote book 2?"] == 1
    assert label_counts(data.labels) == {"silver": {"A": 3, "B": 3}, "bias": {"B": 5, "C": 2}}


@pytest.fixture
def fake_embeddings(monkeypatch) -> list[int]:
    """Embed texts as seeded random vectors; record the targets the head is fitted on."""
    targets: list[int] = []
    real_fit = training.fit_route_head

    def embed(texts):
        return {t: torch.randn(384, generator=torch.Generator().manual_seed(len(t))) for t in texts}

    def fit(vectors, labels, **options):
        targets.extend(labels.tolist())
        return real_fit(vectors, labels, **{**options, "epochs": 1})

    monkeypatch.setattr(training, "embed_texts", embed)
    monkeypatch.setattr(training, "fit_route_head", fit)
    return targets


def test_training_learns_route_a_and_records_it_in_the_manifest(tmp_path, fake_embeddings):
    data_dir = tmp_path / "data"
    write(data_dir / "qa" / "nq.train.jsonl", [r for r in RECORDS if r["dataset"] == "nq"])
    write(data_dir / "qa" / "hotpotqa.train.jsonl", [r for r in RECORDS if r["hop"] == "multi"])
    chat_file = write(tmp_path / "route_a.jsonl", CHAT)
    config = ClassifierConfig(route_a_repeat=4)
    manifest = training.train_classifier(
        data_dir,
        tmp_path / "out",
        config,
        labels_file=tmp_path / "none.jsonl",
        route_a_file=chat_file,
    )
    assert Counter(fake_embeddings) == {0: 8, 1: 6 + 4, 2: 3}  # A: 2 x 4; B: 6 + 1 x 4; C: 3
    counts = manifest["training_data"]["label_counts"]
    assert counts["route_a"] == {"A": 8, "B": 4}
    assert manifest["training_data"]["route_a"]["examples"] == {"A": 2, "B": 1}
    assert manifest["training_data"]["questions"] == len(RECORDS)
    assert manifest["hyperparameters"]["route_a_repeat"] == 4
