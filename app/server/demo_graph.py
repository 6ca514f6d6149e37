"""A model-free demo graph with the real graph's interface, for trying and testing the chat page.

It emits the same typed `custom` events as the real graph (question, route, retrieval, grades,
crag_action, strips, rewrite, web_results, ircot_step, critique, answer), streams its answer
token by token through a fake chat model (`messages` mode), and retrieves by word overlap from a
few built-in passages plus the text files uploaded under `<home>/uploads`. Nothing in it loads a
model, so `acrag serve --demo` starts instantly and the browser tests are deterministic.
"""

import operator
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGenerationChunk
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Overwrite

from stores.home import acrag_home

__all__ = ["BUILTIN_PASSAGES", "DemoState", "build_demo_graph", "graph"]

BUILTIN_PASSAGES: tuple[tuple[str, str], ...] = (
    ("france.txt", "Paris is the capital of France. It lies on the Seine."),
    ("rivers.txt", "The Seine flows through Paris. The Loire is the longest river in France."),
    ("science.txt", "Water boils at 100 degrees Celsius at sea level. Ice melts at 0 degrees."),
)
_WORD = re.compile(r"\w+")
_PROBABILITIES = {"B": {"A": 0.1, "B": 0.8, "C": 0.1}, "C": {"A": 0.05, "B": 0.25, "C": 0.7}}


class DemoState(TypedDict, total=False):
    """The demo graph's state: the real graph's input keys plus what the page reads back."""

    question: str
    messages: Annotated[list[AnyMessage], add_messages]
    passages: list[dict[str, Any]]
    answer: str
    citations: list[dict[str, Any]]
    events: Annotated[list[dict[str, Any]], operator.add]
    """This turn's progress events (reset when a question arrives), as in the real graph."""


class _SlowFakeChatModel(GenericFakeChatModel):
    """A fake chat model that pauses between tokens, like a real one."""

    delay: float = 0.02

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in super()._stream(messages, stop, run_manager, **kwargs):
            time.sleep(self.delay)
            yield chunk


class _Events(list[dict[str, Any]]):
    """One node's progress events: streamed in `custom` mode as emitted, then kept in state."""

    def __init__(self, node: str) -> None:
        super().__init__()
        self.node = node

    def __call__(self, type_: str, **data: Any) -> None:
        payload = {"type": type_, "node": self.node, **data}
        get_stream_writer()(payload)
        self.append(payload)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


def _corpus(uploads: Path) -> list[tuple[str, str]]:
    docs = list(BUILTIN_PASSAGES)
    if uploads.is_dir():
        for path in sorted(uploads.iterdir()):
            if path.is_file():
                docs.append((path.name, path.read_text(encoding="utf-8", errors="replace")))
    return docs


def _last_message(state: DemoState) -> AnyMessage | None:
    messages = state.get("messages") or []
    return messages[-1] if messages else None


def _question(state: DemoState) -> str:
    if state.get("question"):
        return str(state["question"])
    last = _last_message(state)
    if isinstance(last, HumanMessage):
        return last.text
    raise ValueError("no question: send `question` or end `messages` with a human turn")


def _search(question: str, uploads: Path) -> list[dict[str, Any]]:
    """Return the 3 best passages by word overlap, scored in [-1, 1] like the evaluator."""
    query = _words(question)
    scored: list[dict[str, Any]] = []
    for source, text in _corpus(uploads):
        score = round(2 * len(query & _words(text)) / max(1, len(query)) - 1, 3)
        scored.append({"source": source, "title": source, "text": text.strip(), "score": score})
    return sorted(scored, key=lambda p: -p["score"])[:3]


def _route(question: str) -> str:
    return "C" if " and " in f" {question.lower()} " else "B"


def _make_nodes(home: Path | None, token_delay: float) -> dict[str, Any]:
    def classify(state: DemoState) -> dict[str, Any]:
        emit, question = _Events("classify"), _question(state)
        emit("question", question=question, standalone=question)
        route = _route(question)
        probabilities = _PROBABILITIES[route]
        emit("route", route=route, probabilities=probabilities, reason="demo rule")
        last = _last_message(state)
        asked = isinstance(last, HumanMessage) and last.text == question
        turn = [] if asked else [HumanMessage(question)]
        return {"question": question, "messages": turn, "events": Overwrite(list(emit))}

    def retrieve(state: DemoState) -> dict[str, Any]:
        emit, question = _Events("retrieve"), state["question"]
        top = _search(question, (home or acrag_home()) / "uploads")
        found = [{"title": p["title"], "source": p["source"], "position": 0} for p in top]
        emit("retrieval", query=question, step=0, found=3, new=3, passages=found)
        graded = [{**f, "score": p["score"]} for f, p in zip(found, top, strict=True)]
        emit("grades", scores=graded)
        emit("crag_action", action="Correct", graded=3, above_upper=1, upper=0.2, lower=-0.4)
        strips = [{"from": top[0]["source"], "score": top[0]["score"], "text": top[0]["text"]}]
        emit("strips", kept=1, dropped=2, mode="sentences", strips=strips)
        if "web" in _words(question):
            emit("rewrite", query="demo, keywords", purpose="web")
            results = [{"title": "Demo page", "url": "https://example.org/demo"}]
            emit(
                "web_results",
                query="demo, keywords",
                backend="local",
                degraded=False,
                results=results,
            )
        if _route(question) == "C":
            emit("ircot_step", step=1, sentence=top[0]["text"], answer=None)
            emit("ircot_step", step=2, sentence="So the answer is: see [1].", answer="see [1]")
        return {"passages": top, "events": list(emit)}

    def generate(state: DemoState) -> dict[str, Any]:
        emit, best = _Events("generate"), state["passages"][0]
        answer = f"According to {best['title']}: {best['text'][:200]} [1]"
        model = _SlowFakeChatModel(messages=iter([AIMessage(answer)]), delay=token_delay)
        reply = model.invoke([HumanMessage(state["question"])])
        citations = [
            {
                "marker": 1,
                "title": best["title"],
                "source": best["source"],
                "position": 0,
                "url": None,
                "origin": "local",
                "text": best["text"],
            }
        ]
        candidate = {
            "text": answer,
            "score": 2.1,
            "is_rel": 0.9,
            "is_sup": 0.8,
            "support": "full",
            "is_use": 0.75,
            "logprob": None,
        }
        emit("critique", weights=[1.0, 1.0, 0.5], candidates=[candidate])
        emit(
            "answer",
            answer=answer,
            route=_route(state["question"]),
            citations=[best["source"]],
            stop_reason=None,
        )
        return {"answer": answer, "citations": citations, "messages": [reply], "events": list(emit)}

    return {"classify": classify, "retrieve": retrieve, "generate": generate}


def build_demo_graph(
    *,
    checkpointer: BaseCheckpointSaver | None = None,
    home: Path | None = None,
    token_delay: float = 0.02,
) -> CompiledStateGraph:
    """Compile the demo graph; uploaded text files under `<home>/uploads` join its corpus."""
    builder = StateGraph(DemoState)
    names = list(_make_nodes(home, token_delay).items())
    for name, node in names:
        builder.add_node(name, node)
    builder.add_edge(START, names[0][0])
    for (first, _), (second, _) in zip(names, names[1:], strict=False):
        builder.add_edge(first, second)
    builder.add_edge(names[-1][0], END)
    return builder.compile(checkpointer=checkpointer, name="acrag-demo")


graph = build_demo_graph()
