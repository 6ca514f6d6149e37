import math

import pytest

from models.answer_check import FEATURES, AnswerCheck, answer_features, type_match

EVIDENCE = [
    ("The Eiffel Tower was completed in 1889 in Paris.", 0.8),
    ("Gustave Eiffel's company designed the tower.", 0.2),
]


def test_an_answer_in_the_best_strip_gets_its_grade() -> None:
    found = answer_features("When was the Eiffel Tower completed?", "1889", -0.2, EVIDENCE)
    assert found["in_best"] == 1.0 and found["in_evidence"] == 1.0
    assert found["answer_grade"] == 0.8 and found["best_score"] == 0.8
    assert found["type_match"] == 1.0 and found["logprob_missing"] == 0.0
    assert set(found) == set(FEATURES)


def test_an_answer_only_in_a_weaker_strip_gets_that_strips_grade() -> None:
    found = answer_features("Who designed the Eiffel Tower?", "Gustave Eiffel", None, EVIDENCE)
    assert found["in_best"] < 1.0 and found["answer_grade"] == 0.2
    assert found["logprob_missing"] == 1.0 and found["logprob"] == 0.0


def test_an_answer_no_strip_holds_has_no_grade() -> None:
    found = answer_features("When was the Eiffel Tower completed?", "1925", -0.2, EVIDENCE)
    assert found["answer_grade"] == -1.0 and found["in_evidence"] == 0.0
    assert answer_features("Who?", "Ann", None, [])["best_score"] == -1.0


def test_echoing_the_question_and_the_wrong_shape_show() -> None:
    found = answer_features("When was the tower built?", "the tower", -1.0, EVIDENCE)
    assert found["in_question"] == 1.0 and found["type_match"] == 0.0
    assert type_match("How many legs?", "four") == 0.0 and type_match("Why?", "x") == 0.5


def test_the_check_reads_standardised_weighted_features() -> None:
    check = AnswerCheck(("a", "b"), (1.0, 0.0), (2.0, 1.0), (2.0, -1.0), 0.5)
    z = 0.5 + 2.0 * (3.0 - 1.0) / 2.0 - 1.0 * 1.0
    assert check.probability({"a": 3.0, "b": 1.0}) == pytest.approx(1 / (1 + math.exp(-z)))
    with pytest.raises(KeyError):
        check.probability({"a": 1.0})
