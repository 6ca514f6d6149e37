from training.sufficiency import EvidenceSet, choose_threshold, evidence_sets, report, score_sets

GOLD = (
    "The Flash is an American series. The fourth season began airing in 2017. "
    "It ran for 23 episodes on The CW. The show is produced in Vancouver."
)


def _record(index: int) -> dict:
    return {
        "id": str(index),
        "dataset": "nq",
        "question": f"how many episodes is season {index} of the flash",
        "answers": ["23"],
        "passages": [
            {"title": "The Flash", "text": GOLD, "is_supporting": True},
            {
                "title": "Arrow",
                "text": f"Arrow is series {index} on The CW.",
                "is_supporting": False,
            },
        ],
    }


class _ReadsAnswers:
    """A fake evaluator that scores high exactly where the answer occurs."""

    def score_pairs(self, questions: list[str], texts: list[str]) -> list[float]:
        assert len(questions) == len(texts)
        return [0.9 if "23" in t else -0.2 for t in texts]


def test_each_question_gives_a_gold_set_and_the_same_set_without_the_answer() -> None:
    sets = evidence_sets([_record(i) for i in range(4)], per_dataset=3, set_size=2)
    assert len(sets) == 6
    gold, removed = sets[0], sets[1]
    assert (gold.label, removed.label) == (1, 0)
    assert "23" in gold.passages[0] and "23" not in " ".join(removed.passages)
    assert gold.passages[1:] == removed.passages[1:]


def test_an_evaluator_that_reads_the_answer_separates_the_sets() -> None:
    sets = evidence_sets([_record(i) for i in range(4)], per_dataset=4, set_size=2)
    scored = score_sets(sets, _ReadsAnswers())
    result = report(sets, scored, recall=0.95)
    assert result["window_max"]["auc"] == 1.0
    assert result["window_max"]["caught"] == 1.0
    assert result["window_max"]["false_insufficient"] == 0.0


def test_choose_threshold_keeps_the_asked_recall() -> None:
    labels = [1] * 20 + [0] * 20
    scores = [0.5 + 0.01 * i for i in range(20)] + [-0.5 + 0.05 * i for i in range(20)]
    chosen = choose_threshold(labels, scores, recall=0.95)
    assert chosen["false_insufficient"] <= 0.05
    assert 0 < chosen["caught"] <= 1.0


def test_sets_are_hashable_records_of_what_the_reader_sees() -> None:
    item = EvidenceSet("q", ("a", "b"), 1, "nq")
    assert item.passages == ("a", "b")
