"""A model-free demo: the real graph (`build_graph`) wired to small deterministic stand-ins.

Every node, router and event is the real one; only the collaborators are fakes: a rule-based
chat model that answers from the first passage it is shown and streams word by word, a
word-overlap retriever over a few built-in passages plus the text files uploaded under
`<home>/uploads`, a word-overlap evaluator, a one-page "web", and a rule classifier (" and " ->
C, greetings -> A, else B). Nothing loads a model, so `acrag serve --demo` starts instantly and
the browser tests are deterministic.
"""

import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.retrievers import BaseRetriever
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from models.judges import Route, RouteDecision
from models.judges_heuristic import HeuristicSupportChecker, HeuristicUsefulness
from models.text import split_sentences
from nodes.rewrite_query import fallback_keywords
from stores.home import acrag_home
from stores.web import WebResults

__all__ = ["BUILTIN_PASSAGES", "build_demo_graph", "graph"]

BUILTIN_PASSAGES: tuple[tuple[str, str], ...] = (
    ("france.txt", "Paris is the capital of France. It lies on the Seine."),
    ("rivers.txt", "The Seine flows through Paris. The Loire is the longest river in France."),
    ("science.txt", "Water boils at 100 degrees Celsius at sea level. Ice melts at 0 degrees."),
)
_WEB_PAGE = Document(
    page_content="Paris has been the capital of France for centuries; the Seine crosses it.",
    metadata={"title": "Paris (demo web page)", "url": "https://example.org/paris"},
)
_WORD = re.compile(r"\w+")
_PASSAGE = re.compile(r'<passage id="\d+" title="[^"]*">\s*(.*?)\s*</passage>', re.S)
_LAST_QUESTION = re.compile(r"Last question: (.*)")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


def _overlap(question: str, text: str) -> float:
    """Return 2 * (share of the question's words in `text`) - 1, in [-1, 1]."""
    asked = _words(question)
    return round(2 * len(asked & _words(text)) / max(1, len(asked)) - 1, 3)


class DemoModel(BaseChatModel):
    """Answer from the first passage shown, by rules; stream word by word."""

    delay: float = 0.02

    @property
    def _llm_type(self) -> str:
        return "acrag-demo"

    def _reply(self, messages: list[BaseMessage]) -> str:
        prompt = messages[-1].text
        if "keywords" in messages[0].text:  # CRAG's rewrite
            return fallback_keywords(prompt)
        if found := _LAST_QUESTION.search(prompt):  # condense: keep the turn as it is
            return found.group(1)
        passages = _PASSAGE.findall(prompt.split("Now the real task.")[-1])
        first = (split_sentences(passages[0]) or [""])[0] if passages else ""
        if "Reasoning:" in prompt:  # an IRCoT step: one fact, then the answer
            done = prompt.rstrip().endswith(first)
            return f"So the answer is: {first.rstrip('.')}." if done or not first else first
        if not passages:
            return "I do not know that without documents."
        return first

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self._reply(messages)))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for token in re.findall(r"\S+\s*", self._reply(messages)):
            time.sleep(self.delay)
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=token))
            if run_manager:
                run_manager.on_llm_new_token(token, chunk=chunk)
            yield chunk


class DemoRetriever(BaseRetriever):
    """The three passages that share most words with the query."""

    home: Path | None = None

    def _corpus(self) -> list[tuple[str, str]]:
        docs = list(BUILTIN_PASSAGES)
        uploads = (self.home or acrag_home()) / "uploads"
        if uploads.is_dir():
            for path in sorted(p for p in uploads.iterdir() if p.is_file()):
                docs.append((path.name, path.read_text(encoding="utf-8", errors="replace")))
        return docs

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        ranked = sorted(self._corpus(), key=lambda doc: -_overlap(query, doc[1]))[:3]
        return [
            Document(text.strip(), metadata={"source": name, "title": name, "position": 0})
            for name, text in ranked
        ]


class DemoJudges:
    """A rule classifier and a word-overlap evaluator; a one-page web."""

    def classify(self, questions: Sequence[str]) -> list[RouteDecision]:
        """Route " and " questions to C, greetings to A, the rest to B."""
        return [self._route(q) for q in questions]

    @staticmethod
    def _route(question: str) -> RouteDecision:
        text = f" {question.lower()} "
        route: Route = (
            "C" if " and " in text else "A" if text.strip().startswith(("hi", "hello")) else "B"
        )
        probabilities: dict[Route, float] = {"A": 0.1, "B": 0.1, "C": 0.1}
        probabilities[route] = 0.8
        return RouteDecision(route, probabilities, "demo rule")

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        """Score passages by shared words."""
        return [_overlap(question, text) for text in passages]

    def search(self, query: str, *, max_results: int = 5) -> WebResults:
        """Return the demo web page."""
        return WebResults(documents=[_WEB_PAGE], backend="demo")


def build_demo_graph(
    *, checkpointer: Checkpointer = None, home: Path | None = None, token_delay: float = 0.02
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the real graph with the demo's stand-ins."""
    from graphs import build_graph

    judges = DemoJudges()
    model = DemoModel(delay=token_delay)
    return build_graph(
        generator=model,
        rewriter=DemoModel(delay=0.0),
        retriever=DemoRetriever(home=home),
        web_search=judges,
        classifier=judges,
        evaluator=judges,
        support=HeuristicSupportChecker(),
        usefulness=HeuristicUsefulness(),
        checkpointer=checkpointer,
    )


graph = build_demo_graph()
"""The demo graph for `langgraph dev` (compiled without a checkpointer)."""
