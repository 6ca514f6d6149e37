"""Threads over documents the follow-up rules were not written for, with the real reader.

The made-up documents of `bench/datasets/threads/docs/`: a person introduced in an answer,
then "where was she born?" and "when did she die?"; and IRCoT's reasoning held to the strips.
"""

from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from graphs import Context, build_graph
from graphs.deps import Deps
from models.followup import Exchange
from models.followup_llm import LlmRewriter
from nodes.ircot_step import supported

DOCS = Path(__file__).resolve().parents[3] / "bench" / "datasets" / "threads" / "docs"


@pytest.fixture(scope="module")
def threads_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a home with the threads documents as the local index."""
    from stores.ingest import ingest

    home = tmp_path_factory.mktemp("threads-home")
    assert ingest([DOCS], home=home, progress=False).total_chunks >= 6
    return home


def context(home: Path, **settings) -> Context:
    """Settings that keep a run short on two cores without changing the method."""
    return Context(
        home=str(home), web_backend="none", candidates=1, max_answer_tokens=64, **settings
    )


def test_the_reader_rewrites_a_pronoun_to_the_person_named_in_the_answer():
    ctx = Context()
    rewriter = LlmRewriter(lambda: Deps().rewriter_for(ctx))
    first = "Who designed the Halvard Bridge?"
    history = [Exchange(first, first, "Marta Kello designed the Halvard Bridge.")]
    made = rewriter.rewrite("where was she born?", history)
    assert "marta kello" in made.question.lower() and "born" in made.question.lower()
    assert "halvard" not in made.question.lower()  # the name, not the whole answer
    assert made.referent == "she = Marta Kello"


def test_a_person_introduced_in_an_answer_is_followed_for_two_turns(threads_home):
    graph = build_graph(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "kello"}}
    turns = ["Who designed the Halvard Bridge?", "Where was she born?", "When did she die?"]
    finals = []
    for turn in turns:
        finals.append(
            graph.invoke({"messages": [HumanMessage(turn)]}, config, context=context(threads_home))
        )
    assert "Marta Kello" in finals[0]["answer"]
    born, died = finals[1], finals[2]
    assert "marta kello" in born["standalone_question"].lower()
    assert "born" in born["standalone_question"].lower()
    assert "Dunmere" in born["answer"]
    assert "marta kello" in died["standalone_question"].lower()
    assert "1938" in died["answer"]
    question = next(e for e in died["events"] if e["type"] == "question")
    assert question["referent"] == "she = Marta Kello"


def test_ircot_keeps_only_sentences_the_strips_hold(threads_home):
    final = build_graph().invoke(
        {"question": "In which town was the engineer who designed the Halvard Bridge born?"},
        context=context(threads_home, route="C", ircot_max_steps=4),
    )
    seen = [s["text"] for s in final["strips"]]  # kept when the sentence was written, or since
    steps = [e for e in final["events"] if e["type"] == "ircot_step" and e["sentence"]]
    assert steps  # the reader wrote at least one sentence
    question = final["standalone_question"]
    for index, sentence in enumerate(final["reasoning"]):
        known = " ".join([question, *final["reasoning"][:index]])
        assert supported(sentence, seen, known), sentence
    dropped = {e["sentence"] for e in steps if e.get("dropped")}
    assert not dropped & set(final["reasoning"])
