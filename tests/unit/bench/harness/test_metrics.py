import pytest

from bench.harness.metrics import (
    abstention_rates,
    accuracy,
    exact_match,
    is_answerable,
    normalize_answer,
    question_correct,
    score_prediction,
    token_f1,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  an   Apple, a day ", "apple day"),
        ("Theatre of the Absurd", "theatre of absurd"),
        ("1950–1953)", "1950–1953"),
        ("", ""),
    ],
)
def test_normalize_answer_follows_squad(text, expected):
    assert normalize_answer(text) == expected


def test_exact_match_ignores_case_articles_and_punctuation():
    assert exact_match("the Continental Army.", "Continental Army") == 1.0
    assert exact_match("Continental Army of America", "Continental Army") == 0.0


def test_token_f1_hand_checked():
    # prediction tokens: continental, army, soldiers (3); gold: continental, army (2); common 2
    # precision 2/3, recall 1 -> F1 = 0.8
    assert token_f1("Continental Army soldiers", "the Continental Army") == pytest.approx(0.8)
    assert token_f1("Berlin", "Paris") == 0.0
    assert token_f1("", "Paris") == 0.0


def test_accuracy_needs_whole_words():
    assert accuracy("He was born in Florence, Italy in 1950.", "Florence") == 1.0
    assert accuracy("Florenceville", "Florence") == 0.0
    assert accuracy("anything", "") == 0.0


def test_best_over_aliases():
    scores = score_prediction("Firenze", ["Florence", "Firenze", "Florence, Italy"])
    assert (scores.em, scores.f1, scores.acc) == (1.0, 1.0, 1.0)
    partial = score_prediction("Florence Tuscany", ["Florence, Italy", "Rome"])
    assert partial.em == 0.0
    assert partial.f1 == pytest.approx(0.5)  # 1 common of 2 and 2 tokens
    assert partial.acc == 0.0


def test_yes_no_verdict_with_explanation_counts():
    scores = score_prediction("Yes, both are American bands.", ["yes"])
    assert (scores.em, scores.f1, scores.acc) == (1.0, 1.0, 1.0)


def test_yes_no_wrong_verdict_scores_zero():
    scores = score_prediction("No, they are not.", ["yes"])
    assert (scores.em, scores.f1, scores.acc) == (0.0, 0.0, 0.0)


def test_no_is_not_found_inside_other_words():
    scores = score_prediction("I do not know", ["no"])
    assert (scores.em, scores.f1, scores.acc) == (0.0, 0.0, 0.0)


def test_yes_prediction_against_entity_gold_scores_zero():
    assert token_f1("yes", "Paris") == 0.0
    assert score_prediction("yes", ["yes"]).f1 == 1.0


def test_no_answers_scores_zero():
    assert score_prediction("Paris", []) == score_prediction("", ["x"])


def test_unanswerable_is_right_only_when_abstained():
    assert not is_answerable([]) and not is_answerable([" "]) and is_answerable(["a"])
    assert question_correct([], acc=0.0, abstained=True) == 1.0
    assert question_correct([], acc=0.0, abstained=False) == 0.0
    assert question_correct(["Paris"], acc=1.0, abstained=False) == 1.0
    assert question_correct(["Paris"], acc=0.0, abstained=True) == 0.0
    # An abstention sentence can contain a short gold token ("I ..." and `-i`): still wrong.
    assert question_correct(["-i"], acc=1.0, abstained=True) == 0.0


def test_abstention_rates_per_kind():
    rates = abstention_rates([([], True), ([], False), ([], True), (["a"], True), (["b"], False)])
    assert (rates.unanswerable, rates.answerable) == (3, 2)
    assert rates.abstention == pytest.approx(2 / 3)
    assert rates.false_abstention == 0.5
    assert abstention_rates([(["a"], False)]).abstention is None


@pytest.mark.parametrize(
    ("prediction", "gold", "expected"),
    [
        ("Use `-A 3`.", "-A", 1.0),
        ("grep -A3 pattern", "-A", 1.0),
        ("Use -a.", "-A", 0.0),  # another option of the same tool
        ("I could not find it.", "-i", 0.0),  # the pronoun is not the option
        ("Use --ignore-case.", "-i", 0.0),
        ("Use --pid=PID.", "--pid", 1.0),  # the right option with its argument
        ("Use --pid-file.", "--pid", 0.0),
        ("--keep-old-files", "--keep", 0.0),
        ("pip install --hash=sha256:abc", "--hash=sha256", 1.0),
        ("Run `gzip -9`, best compression.", "-9", 1.0),
        ("It uses -90 as the level.", "-9", 0.0),  # another number
    ],
)
def test_accuracy_of_an_option_needs_the_option_as_written(prediction, gold, expected):
    assert accuracy(prediction, gold) == expected
