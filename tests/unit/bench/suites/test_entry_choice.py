from bench.suites.entry_choice import _bm25, _rates, gold_rank


def test_the_rank_is_that_of_the_best_scored_gold_entry():
    assert gold_rank([0.1, 0.9, 0.5], {2}) == 1
    assert gold_rank([0.1, 0.9, 0.5], {0, 2}) == 1
    assert gold_rank([0.1, 0.9, 0.5], {1}) == 0


def test_bm25_prefers_the_entry_that_shares_the_question_s_words():
    texts = [
        "-B, --before-context=NUM print NUM lines of leading context",
        "-A, --after-context=NUM print NUM lines of trailing context",
        "-c, --count print only a count of selected lines",
    ]
    scores = _bm25("how do I count the matching lines", texts)
    assert max(range(3), key=lambda i: scores[i]) == 2


def test_rates_count_first_and_second_places():
    assert _rates([0, 1, 3, 0]) == {"n": 4, "top1": 0.5, "top2": 0.75}
    assert _rates([]) == {"n": 0, "top1": 0.0, "top2": 0.0}
