"""The hand-written route-A set: the committed file, its schema and the repetition rule."""

import json
from collections import Counter
from pathlib import Path

import pytest

from models.errors import UserError
from training.route_a import ChatExample, balanced_repeat, read_route_a


def test_the_committed_file_parses_into_both_splits_with_both_routes() -> None:
    examples = read_route_a()  # raises on a schema break or a duplicate text
    counts = Counter((e.route, e.split) for e in examples)
    assert counts[("A", "train")] >= 90 and counts[("A", "dev")] >= 25
    assert counts[("B", "train")] >= 25 and counts[("B", "dev")] >= 8
    assert {e.route for e in examples} == {"A", "B"}
    dev_share = sum(n for (_, split), n in counts.items() if split == "dev") / len(examples)
    assert 0.2 <= dev_share <= 0.3
    assert [e.split for e in read_route_a(split="dev")] == ["dev"] * sum(
        n for (_, split), n in counts.items() if split == "dev"
    )


def test_every_kind_of_input_has_hard_negatives_and_is_in_both_splits() -> None:
    examples = read_route_a()
    kinds = {e.kind for e in examples}
    assert len(kinds) >= 7
    for route in ("A", "B"):
        for split in ("train", "dev"):
            assert {e.kind for e in examples if (e.route, e.split) == (route, split)} == kinds


def test_no_text_appears_twice_even_in_another_case() -> None:
    texts = [e.text.casefold().strip() for e in read_route_a()]
    assert len(texts) == len(set(texts))


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


ROW = {"text": "hi", "route": "A", "kind": "greeting", "split": "train"}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({**ROW, "route": "C"}, "route must be A or B, not 'C'"),
        ({**ROW, "split": "test"}, "split must be train or dev"),
        ({**ROW, "text": "  "}, "empty text"),
        ({"text": "hi", "route": "A"}, "need string fields"),
    ],
)
def test_schema_breaks_are_refused_with_their_line(tmp_path, bad, message) -> None:
    path = write(tmp_path / "route_a.jsonl", [{**ROW, "text": "hello"}, bad])
    with pytest.raises(UserError, match=rf"route_a.jsonl:2: {message}"):
        read_route_a(path)


def test_a_line_that_is_not_json_is_refused_with_its_line(tmp_path) -> None:
    path = write(tmp_path / "route_a.jsonl", [ROW])
    path.write_text(path.read_text() + "{text: hi}\n")
    with pytest.raises(UserError, match="route_a.jsonl:2: not JSON"):
        read_route_a(path)


def test_a_duplicate_text_is_refused(tmp_path) -> None:
    path = write(tmp_path / "route_a.jsonl", [ROW, {**ROW, "text": "HI", "split": "dev"}])
    with pytest.raises(UserError, match="duplicate text 'HI'"):
        read_route_a(path)


def test_the_repeat_is_the_balanced_class_weight_of_route_a() -> None:
    chat = [ChatExample(f"hi {i}", "A", "greeting", "train") for i in range(8)]
    chat += [ChatExample("hi, who built it?", "B", "greeting", "train")]
    dataset = ["B"] * 60 + ["C"] * 29 + ["A"] * 2
    # 100 labels, 10 of them A: 100 / (3 * 10) = 3.3 -> 3 copies
    assert balanced_repeat(dataset, chat) == 3
    assert balanced_repeat(["B"] * 10, []) == 1  # no A at all: nothing to weigh
    assert balanced_repeat(["A"] * 10, chat) == 1  # never below one copy
