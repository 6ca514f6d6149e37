from bench.reports.failure_kinds import failure_kind, failure_table
from tests.unit.bench.factories import record


def test_a_wrong_answer_is_reading_when_the_token_was_retrieved_else_retrieval():
    wrong = record(qid="q", score=0.0, answers=["-A"])
    assert failure_kind(wrong, 3, k=4) == "reading"
    assert failure_kind(wrong, 4, k=4) == "retrieval"  # rank 4 is the fifth chunk
    assert failure_kind(wrong, None, k=4) == "retrieval"
    assert failure_kind(record(score=1.0, answers=["-A"]), None, k=4) == "right"


def test_abstentions_are_told_apart_by_kind_of_question():
    declined = record(score=0.0, answers=["-A"], abstained=True)
    assert failure_kind(declined, 0, k=4) == "false abstention (retrieved)"
    assert failure_kind(declined, None, k=4) == "false abstention (not retrieved)"
    assert failure_kind(record(score=0.0, answers=[], abstained=True), None, k=4) == "right"
    assert failure_kind(record(score=0.0, answers=[]), None, k=4) == "unanswerable answered"


def test_the_table_counts_every_record_and_lists_only_the_wrong_ones():
    records = [
        record(qid="a", score=1.0, answers=["-A"]),
        record(qid="b", score=0.0, answers=["-F"], prediction="use  -E\nthen"),
        record(qid="c", score=0.0, answers=["-o"]),
    ]
    counts, lines = failure_table(records, {"a": {"exact": 0}, "b": {"exact": 1}}, k=4)
    assert counts == {"right": 1, "reading": 1, "retrieval": 1}
    assert lines == [
        "| b | reading | 1 | -F | use -E then |",
        "| c | retrieval | - | -o | p |",
    ]
