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
from models.followup_choice import ChoiceRewriter
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
    rewriter = ChoiceRewriter(lambda: Deps().follow_up_model_for(ctx))
    first = "Tell me about the Halvard Bridge."  # after "Who ...?" a rule would choose
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


def _strip(text: str) -> dict:
    return {
        "hash": text,
        "passage_hash": text,
        "order": 0,
        "text": text,
        "title": "People of the Sorrel Valley",
        "source": "people.md",
        "position": 0,
        "url": None,
        "origin": "local",
        "score": 0.9,
        "kept": True,
    }


def _step(strips: list[str]) -> tuple[dict, list]:
    """Run one IRCoT step with the real reader after "designed by Marta Kello"."""
    from langgraph.runtime import Runtime

    from nodes.ircot_step import ircot_step

    question = "Where was the engineer who designed the Halvard Bridge born?"
    state = {
        "standalone_question": question,
        "reasoning": ["The Halvard Bridge was designed by Marta Kello."],
        "ircot_steps": 1,
        "strips": [_strip(t) for t in strips],
        "search_query": "The Halvard Bridge was designed by Marta Kello.",
    }
    events: list = []
    runtime = Runtime(context=Context(max_answer_tokens=64), stream_writer=events.append)
    return ircot_step(state, runtime, Deps()), events


@pytest.mark.parametrize(
    "strips",
    [
        ["Marta Kello was a civil engineer. She was born in 1871 in Dunmere."],
        ["Marta Kello was a civil engineer. Kello designed the Halvard Bridge."],  # no birthplace
    ],
)
def test_ircot_keeps_a_real_step_only_when_a_strip_holds_it(strips):
    out, events = _step(strips)
    step = next(e for e in events if e["type"] == "ircot_step")
    sentence, question = step["sentence"], out.get("search_query")
    if not sentence:  # the reader gave nothing new: said, and the loop ends
        assert events[0]["type"] == "fallback" and out["ircot_done"]
        return
    known = "Where was the engineer who designed the Halvard Bridge born? "
    held = supported(sentence, strips, known + "The Halvard Bridge was designed by Marta Kello.")
    assert bool(step.get("dropped")) is not held
    if held:
        assert out["reasoning"][-1] == sentence and question == sentence
    else:  # an invented fact never becomes the next query nor the answer
        assert "reasoning" not in out and out["ircot_answer"] is None
        assert question.startswith("Where was the engineer")
