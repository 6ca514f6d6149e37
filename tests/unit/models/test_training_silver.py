from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from models.training.silver import RunnerConfig, bm25_rank, label_questions

RECORD = {
    "id": "q1",
    "dataset": "hotpotqa",
    "hop": "multi",
    "question": "Where was Ada born?",
    "answers": ["London"],
    "passages": [
        {"title": "Cats", "text": "Cats purr.", "is_supporting": False},
        {"title": "Ada", "text": "Ada was born in London.", "is_supporting": True},
    ],
}


def test_bm25_ranks_the_matching_passage_first() -> None:
    assert bm25_rank("where was ada born", ["Cats purr.", "Ada was born in London."])[0] == 1


def test_runner_labels_each_strategy_by_answer_match() -> None:
    # A answers wrongly; B right; IRCoT says "answer is" in its first sentence (the rest is cut).
    replies = iter(["Paris", "London", "So the answer is: London. Extra sentence."])
    model = GenericFakeChatModel(messages=(AIMessage(r) for r in replies))
    (row,) = label_questions([RECORD], model, config=RunnerConfig())
    assert row["correct"] == {"A": False, "B": True, "C": True}
    assert row["predictions"]["C"] == "London."
    assert row["ircot_steps"] == 1


def test_ircot_stops_at_the_step_cap_and_answers() -> None:
    replies = iter(["x", "y", "Ada is a person.", "She lived.", "Final: Rome"])
    model = GenericFakeChatModel(messages=(AIMessage(r) for r in replies))
    (row,) = label_questions([RECORD], model, config=RunnerConfig(max_steps=2))
    assert row["ircot_steps"] == 2
    assert row["predictions"]["C"] == "Final: Rome"
    assert row["correct"]["C"] is False
