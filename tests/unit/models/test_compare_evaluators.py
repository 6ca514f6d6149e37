import pytest

from training.compare_evaluators import compare, measures
from training.data import Pair


def _pairs() -> list[Pair]:
    pairs = []
    for n in range(12):
        question, dataset = f"q{n}", "nq" if n % 2 else "musique"
        pairs += [
            Pair(question, "gold", 1, "positive", dataset),
            Pair(question, "distractor", 0, "hard", dataset),
            Pair(question, "gold minus answer", 0, "answerless", dataset),
        ]
    return pairs


def test_measures_name_the_report_s_pair_sets():
    pairs = _pairs()
    found = measures(pairs)
    assert {"all", "positive_vs_hard", "positive_vs_answerless", "nq", "musique"} <= set(found)
    answerless = [p.kind for p in pairs if found["positive_vs_answerless"](p)]
    assert set(answerless) == {"positive", "answerless"}
    assert not any(found["all"](p) for p in pairs if p.kind == "answerless")


def test_a_candidate_that_tells_answerless_apart_wins_there_and_ties_elsewhere():
    pairs = _pairs()
    # A ranks every positive above its distractor but not above the answer-less copy; B does both.
    a = [{"positive": 0.5, "hard": -0.5, "answerless": 0.6}[p.kind] for p in pairs]
    b = [{"positive": 0.7, "hard": -0.5, "answerless": 0.1}[p.kind] for p in pairs]
    rows = {r.measure: r for r in compare(pairs, a, b, resamples=200)}
    assert rows["positive_vs_hard"].a == rows["positive_vs_hard"].b == 1.0
    assert rows["positive_vs_hard"].low == rows["positive_vs_hard"].high == 0.0
    answerless = rows["positive_vs_answerless"]
    assert (answerless.a, answerless.b) == (0.0, 1.0)
    assert answerless.low == pytest.approx(1.0)
    assert str(answerless).startswith("| positive_vs_answerless | 24 | 0.000 | 1.000 | +1.000")
