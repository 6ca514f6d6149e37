import pytest

from bench.harness.judge_metrics import accuracy, confusion_matrix, roc_auc
from training.answers import answer_in, normalize_answer
from training.data import build_pairs, is_relevant, split_strips


def test_squad_normalisation_and_answer_match() -> None:
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert answer_in("It was built by Gustave Eiffel.", ["gustave eiffel"])
    assert not answer_in("Eiffelberg", ["Eiffel"])  # whole tokens only
    assert not answer_in("anything", ["the"])  # an answer that normalises to nothing never matches


def test_relevance_uses_is_supporting_then_the_answer() -> None:
    assert is_relevant({"text": "x", "is_supporting": True}, ["y"])
    assert not is_relevant({"text": "y", "is_supporting": False}, ["y"])
    assert is_relevant({"text": "it is y", "is_supporting": None}, ["y"])


def test_strips_keep_short_passages_whole() -> None:
    assert split_strips("One sentence. Two sentences.") == ["One sentence. Two sentences."]
    assert split_strips("A one. B two. C three. D four. E five.") == [
        "A one. B two.",
        "C three. D four.",
        "E five.",
    ]


def _record(i: int) -> dict[str, object]:
    return {
        "id": str(i),
        "dataset": "d",
        "hop": "multi",
        "question": f"q{i}",
        "answers": [f"a{i}"],
        "passages": [
            {
                "title": "g",
                "text": f"Gold {i} says a{i}. More text here. And more.",
                "is_supporting": True,
            },
            {"title": "h", "text": f"Hard {i}. Nothing. At all.", "is_supporting": False},
        ],
    }


def test_pairs_hold_positives_hard_and_easy_negatives() -> None:
    records = [_record(i) for i in range(4)]
    pairs = build_pairs(records, strips=True, seed=1)
    kinds = {(p.kind, p.label) for p in pairs}
    assert kinds == {("positive", 1), ("hard", 0), ("easy", 0), ("strip+", 1), ("strip-hard", 0)}
    for pair in pairs:
        owner = int(pair.question[1:])
        if pair.kind == "easy":
            assert str(owner) not in pair.text.split()[1]
        if pair.label:
            assert f"a{owner}" in pair.text


def test_metrics() -> None:
    assert roc_auc([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.2]) == 1.0
    assert roc_auc([1, 0], [0.5, 0.5]) == 0.5
    assert roc_auc([1, 0, 1, 0], [0.1, 0.9, 0.2, 0.8]) == 0.0
    assert accuracy(["A", "B"], ["A", "C"]) == 0.5
    assert confusion_matrix(["A", "B"], ["A", "A"], ["A", "B"]) == {
        "A": {"A": 1, "B": 0},
        "B": {"A": 1, "B": 0},
    }
    with pytest.raises(ValueError):
        accuracy([1], [])
