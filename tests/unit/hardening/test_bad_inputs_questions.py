"""Bad and unusual questions: a clear InvalidQuestionError or a safe answer, never a crash."""

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from app.cli import main
from graphs import Context, InvalidQuestionError, build_graph
from models.judges_heuristic import (
    HeuristicClassifier,
    HeuristicSupportChecker,
    HeuristicUsefulness,
)
from tests.fakes import (
    FakeRetriever,
    FakeWebSearch,
    KeywordEvaluator,
    follow_up_reply,
    local_doc,
    rule_model,
    structured_model,
)

DOCS = [
    local_doc("Paris is the capital of France.", title="Paris", position=0),
    local_doc("巴黎是法国的首都。", title="巴黎", position=1),
    local_doc("Москва — столица России.", title="Москва", position=2),
    local_doc("القاهرة هي عاصمة مصر.", title="القاهرة", position=3),
]


def make_graph(*, generator=None, rewriter=None, checkpointer=None):
    return build_graph(
        generator=generator or rule_model(default="Paris."),
        rewriter=rewriter or rule_model(default="capital, city"),
        retriever=FakeRetriever(documents=list(DOCS), queries=[]),
        web_search=FakeWebSearch(),
        classifier=HeuristicClassifier(),
        evaluator=KeywordEvaluator(("capital", "首都", "столица", "عاصمة")),
        support=HeuristicSupportChecker(),
        usefulness=HeuristicUsefulness(),
        checkpointer=checkpointer,
    )


INVALID = {
    "empty": "",
    "spaces": "     ",
    "whitespace-mix": " \n\t\r\n ",
    "one-megabyte": "why " * 262_144,
    "one-over-the-limit": "a" * 2001,
    "nul": "What\x00 is Paris?",
    "bell": "\x07",
    "ansi-escape": "\x1b[31mred\x1b[0m question",
    "delete-char": "Paris\x7f?",
    "c1-control": "Paris\x85\x9b?",
    "lone-high-surrogate": "Where \ud800 is Paris?",
    "lone-low-surrogate": "\udfff",
    "surrogateescape-bytes": b"caf\xe9 in Paris?".decode("utf-8", "surrogateescape"),
    "not-text-bytes": b"What is Paris?",
    "not-text-int": 42,
}


@pytest.mark.parametrize("question", list(INVALID.values()), ids=list(INVALID))
def test_invalid_question_is_rejected_before_any_model_call(question) -> None:
    generator, rewriter = rule_model(), rule_model()
    graph = make_graph(generator=generator, rewriter=rewriter)
    with pytest.raises(InvalidQuestionError):
        graph.invoke({"question": question}, context=Context())
    assert generator.calls == [] and rewriter.calls == []


CLI_INVALID = {
    "cli-empty": ("", "the question is empty"),
    "cli-whitespace": ("  \t ", "the question is empty"),
    "cli-one-megabyte": ("x" * 1_000_000, "the limit is 2000"),
    "cli-control": ("a\x01b", "control characters: U+0001"),
    "cli-invalid-utf8-argv": (b"caf\xe9".decode("utf-8", "surrogateescape"), "not valid Unicode"),
}


@pytest.mark.parametrize("case", list(CLI_INVALID), ids=list(CLI_INVALID))
def test_cli_rejects_invalid_question_with_one_clear_line(case: str, capsys) -> None:
    question, message = CLI_INVALID[case]
    assert main(["ask", question]) == 2
    err = capsys.readouterr().err
    assert err.startswith("loading models ...\n")  # said before anything loads
    error = err.removeprefix("loading models ...\n")
    assert error.startswith("acrag: error: ") and message in error and error.count("\n") == 1


SCRIPTS = {
    "chinese": "法国的首都是哪里？",
    "japanese": "フランスの首都はどこですか？",
    "korean": "프랑스의 수도는 어디입니까?",
    "arabic": "ما هي عاصمة فرنسا؟",
    "hebrew": "מהי בירת צרפת?",
    "cyrillic": "Какая столица у Франции?",
    "hindi": "फ्रांस की राजधानी क्या है?",
    "thai": "เมืองหลวงของฝรั่งเศสคืออะไร",
    "emoji-only": "🗼🇫🇷❓",
    "emoji-zwj": "Which city has the 👨‍👩‍👧‍👦 tower? 🏳️‍🌈",
    "combining-marks": "Pa\u0301ri\u0308s capital?",
    "zero-width-and-bidi": "Paris\u200b\u200d\u202e capital?",
    "fullwidth": "ＰＡＲＩＳ ｃａｐｉｔａｌ？",
    "replacement-char": b"caf\xe9 Paris".decode("utf-8", "replace"),
    "mixed-scripts": "Paris 巴黎 Париж باريس?",
    "tabs-and-newlines": "What is\tthe capital\nof France?",
    "math-symbols": "∀x∈ℝ: is √2 > 1.41?",
    "exactly-the-limit": "é" * 2000,
}


@pytest.mark.parametrize("question", list(SCRIPTS.values()), ids=list(SCRIPTS))
def test_question_in_any_script_gets_an_answer(question: str) -> None:
    result = make_graph().invoke({"question": question}, context=Context())
    assert result["answer"].startswith("Paris.")
    assert result["question"] == question.strip()
    assert result["events"][-1]["type"] == "answer"


@pytest.mark.parametrize("route", ["A", "B", "C"])
def test_non_latin_question_works_on_every_route(route: str) -> None:
    result = make_graph().invoke(
        {"question": "Какая столица у Франции?"}, context=Context(route=route)
    )
    assert result["answer"] and result["route"] == route


def test_hundreds_of_turns_through_a_checkpointer_stay_bounded() -> None:
    rewriter = structured_model(default=follow_up_reply("What is the capital of France?"))
    graph = make_graph(rewriter=rewriter, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "long"}}
    turns = 300
    for turn in range(turns):
        result = graph.invoke(
            {"question": f"And follow-up number {turn}?"}, config=config, context=Context(route="A")
        )
    messages = result["messages"]
    assert len(messages) == 2 * turns
    assert isinstance(messages[-2], HumanMessage) and isinstance(messages[-1], AIMessage)
    assert messages[-2].content == f"And follow-up number {turns - 1}?"
    assert result["answer"].startswith("Paris.")
    condense_prompt = rewriter.calls[-1][1]
    assert (
        "number 296" in condense_prompt and "number 290" not in condense_prompt
    )  # last turns only
    assert len(condense_prompt) < 4000


def test_long_history_sent_as_messages_answers_the_last_question() -> None:
    history = []
    for turn in range(400):
        history += [HumanMessage(f"question {turn} " + "x" * 500), AIMessage(f"answer {turn}")]
    history.append(HumanMessage("What is the capital of France?"))
    rewriter = rule_model(default="What is the capital of France?")
    result = make_graph(rewriter=rewriter).invoke({"messages": history}, context=Context(route="B"))
    assert result["question"] == "What is the capital of France?"
    assert result["answer"].startswith("Paris.")
    assert all(len(prompt) < 6000 for _, prompt in rewriter.calls)


def test_invalid_question_mid_conversation_keeps_the_thread() -> None:
    graph = make_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"question": "What is the capital?"}, config=config, context=Context(route="A"))
    with pytest.raises(InvalidQuestionError):
        graph.invoke({"question": "\x00"}, config=config, context=Context(route="A"))
    result = graph.invoke({"question": "And again?"}, config=config, context=Context(route="A"))
    assert [m.content for m in result["messages"] if isinstance(m, HumanMessage)] == [
        "What is the capital?",
        "And again?",
    ]
