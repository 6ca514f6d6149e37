import json
import math
from pathlib import Path

import pytest

from models.answer_check import (
    FEATURES,
    READER_FEATURES,
    AnswerCheck,
    ArtifactMismatchError,
    agreement,
    answer_features,
    reader_features,
    span_logprobs,
    type_match,
)

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


def test_the_span_ends_at_the_first_line_break_and_skips_the_end_token() -> None:
    tokens = [("\n", -3.0), ("J", -0.5), ("esse", -0.1), (" Williams", -0.3), ("\n", -2.0)]
    tokens += [("Note", -4.0), ("", -0.01)]
    mean, low = span_logprobs(tokens)
    assert mean == pytest.approx(-0.3) and low == -0.5


def test_a_token_that_ends_the_last_word_counts_and_sentences_end_at_a_blank_line() -> None:
    tokens = [("Paris", -0.2), (".\n", -0.6), ("It", -1.0), ("\n\n", -0.4), ("More", -5.0)]
    assert span_logprobs(tokens) == (pytest.approx(-0.4), -0.6)
    assert span_logprobs(tokens, short=False) == (pytest.approx(-0.6), -1.0)
    assert span_logprobs([("", -0.1)]) is None and span_logprobs([]) is None


def test_agreement_is_the_word_overlap_of_two_answers() -> None:
    assert agreement("The Beatles", "beatles.") == 1.0
    assert agreement("Jesse Williams", "Jesse Wesley Williams") == pytest.approx(0.8)
    assert agreement("1888", "1904") == 0.0 and agreement("", "x") == 0.0


def test_reader_features_flag_a_missing_second_candidate() -> None:
    alone = reader_features("1888", [("1888", -0.1)], [])
    assert alone == {
        "span_mean": -0.1,
        "span_min": -0.1,
        "agreement": 1.0,
        "agreement_missing": 1.0,
    }
    paired = reader_features("1888", [], ["1904", "in 1888"])
    assert paired["agreement"] == pytest.approx(2 / 3) and paired["agreement_missing"] == 0.0
    assert paired["span_mean"] == 0.0 and set(paired) == set(READER_FEATURES)


def test_a_saved_check_loads_back_and_a_changed_file_is_refused(tmp_path: Path) -> None:
    check = AnswerCheck(("a", "b"), (1.0, 0.0), (2.0, 1.0), (2.0, -1.0), 0.5)
    digest = check.save(tmp_path, dev_auc=0.8)
    assert AnswerCheck.load(tmp_path) == check
    assert json.loads((tmp_path / "manifest.json").read_text())["model_sha256"] == digest
    changed = json.loads((tmp_path / "answer_check.json").read_text()) | {"bias": 9.0}
    (tmp_path / "answer_check.json").write_text(json.dumps(changed))
    with pytest.raises(ArtifactMismatchError):
        AnswerCheck.load(tmp_path)
