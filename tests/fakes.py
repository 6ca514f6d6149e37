"""Shared fakes for unit tests: chat models, retriever, web search and judges. No network."""

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.retrievers import BaseRetriever
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.state import Passage, content_hash
from models.judges import Route, RouteDecision, SupportJudgement, SupportLevel
from models.structured import StructuredOutputMixin


class RuleChatModel(GenericFakeChatModel):
    """Reply by rules: the first (substring, reply) whose substring is in the prompt wins.

    Every prompt is recorded in `calls` as (max_tokens, prompt text). The one streaming fake of
    the tests: `GenericFakeChatModel` streams the reply token by token (words and spaces), so
    subclasses change what is said (`_reply`, `_generate`), never how it streams.
    """

    rules: list[tuple[str, str]] = []
    default: str = "I do not know."
    calls: list[tuple[str, str]] = []
    messages: Iterator[Any] = iter(())

    def _reply(self, messages: list[BaseMessage]) -> str:
        prompt = "\n".join(str(m.content) for m in messages)
        for needle, reply in self.rules:
            if needle in prompt:
                return reply
        return self.default

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = self._reply(messages)
        self.calls.append(
            (str(kwargs.get("max_tokens")), "\n".join(str(m.content) for m in messages))
        )
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


def rule_model(
    rules: Sequence[tuple[str, str]] = (), default: str = "I do not know."
) -> RuleChatModel:
    """Return a RuleChatModel with its own call log."""
    return RuleChatModel(rules=list(rules), default=default, calls=[])


class StructuredRuleModel(StructuredOutputMixin, RuleChatModel):
    """A RuleChatModel with `with_structured_output`: its replies are the JSON asked for."""


def structured_model(
    rules: Sequence[tuple[str, str]] = (), default: str = "{}"
) -> StructuredRuleModel:
    """Return a StructuredRuleModel with its own call log."""
    return StructuredRuleModel(rules=list(rules), default=default, calls=[])


def follow_up_reply(question: str, refers_to: str = "") -> str:
    """Return a follow-up model's JSON reply (the choice reads `refers_to`)."""
    return json.dumps({"standalone_question": question, "refers_to": refers_to})


def local_doc(text: str, *, title: str, source: str = "corpus.md", position: int = 0) -> Document:
    """Return a Document shaped like the stores retriever's output."""
    return Document(
        page_content=text,
        metadata={
            "id": f"{source}:{position}",
            "source": source,
            "title": title,
            "position": position,
            "hash": str(hash(text)),
            "score": 0.5,
            "origin": "local",
        },
    )


def web_doc(text: str, *, title: str, url: str) -> Document:
    """Return a Document shaped like a web search result."""
    return Document(
        page_content=text, metadata={"url": url, "title": title, "score": 0.9, "origin": "web"}
    )


class FakeRetriever(BaseRetriever):
    """Return the top-k documents by shared words with the query; log every query."""

    documents: list[Document]
    k: int = 3
    queries: list[str] = []

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        self.queries.append(query)
        words = set(query.lower().split())
        ranked = sorted(
            self.documents, key=lambda d: -len(words & set(d.page_content.lower().split()))
        )
        return ranked[: self.k]


@dataclass
class FakeWebResults:
    """Same fields as stores.web.WebResults."""

    documents: list[Document]
    backend: str = "fake"
    degraded: str | None = None


@dataclass
class FakeWebSearch:
    """Return fixed pages; log every query."""

    documents: list[Document] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def search(self, query: str, *, max_results: int = 5) -> FakeWebResults:
        self.queries.append(query)
        return FakeWebResults(self.documents[:max_results])


@dataclass
class FakeClassifier:
    """Always pick `route`."""

    route: Route = "B"

    def classify(self, questions: Sequence[str]) -> list[RouteDecision]:
        return [RouteDecision(self.route, {self.route: 0.9}, "fake") for _ in questions]


@dataclass
class KeywordEvaluator:
    """Score `hit` when a passage contains any keyword, else `miss`."""

    keywords: tuple[str, ...] = ()
    hit: float = 0.9
    miss: float = -0.9
    calls: int = 0

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        self.calls += 1
        return [
            self.hit if any(k.lower() in p.lower() for k in self.keywords) else self.miss
            for p in passages
        ]


@dataclass
class FirstWordsEvaluator:
    """Score `hit` when a keyword sits in a text's first `reads` words, else `miss`.

    Like the trained evaluator, which reads a passage's first 160 tokens only: a long passage
    hides an answer in its middle. Logs every batch in `batches`.
    """

    keywords: tuple[str, ...] = ()
    reads: int = 12
    hit: float = 0.9
    miss: float = -0.9
    batches: list[list[str]] = field(default_factory=list)

    def score(self, question: str, passages: Sequence[str]) -> list[float]:
        self.batches.append(list(passages))
        seen = [" ".join(p.split()[: self.reads]).lower() for p in passages]
        return [self.hit if any(k.lower() in s for k in self.keywords) else self.miss for s in seen]


@dataclass
class FixedSupport:
    """Support by rule: `full` if the answer contains `needle`, else `otherwise`."""

    needle: str = ""
    otherwise: SupportLevel = "none"

    def support(
        self, question: str, answer: str, evidence: Sequence[str]
    ) -> dict[SupportLevel, float]:
        level = self._level(answer)
        return {
            "full": float(level == "full"),
            "partial": float(level == "partial"),
            "none": float(level == "none"),
        }

    def support_each(self, question: str, answer: str, evidence: Sequence[str]) -> SupportJudgement:
        """Judge the whole evidence as `support` does, and each item by the same rule."""
        levels = self.support(question, answer, evidence)
        return SupportJudgement(levels, [self._level(answer)] * len(evidence))

    def _level(self, answer: str) -> SupportLevel:
        return "full" if self.needle and self.needle in answer else self.otherwise


@dataclass
class AnswerInWindowLogits:
    """A support cross-encoder stand-in: logit +4 if the answer occurs in the window, else -4.

    Reads the first segment as `question [SEP] answer`; counts its calls in `calls`.
    """

    calls: int = 0

    def __call__(self, firsts: Sequence[str], windows: Sequence[str]) -> Any:
        import torch

        self.calls += 1
        answers = [first.split(" [SEP] ")[1].rstrip(".") for first in firsts]
        hits = [4.0 if a in w else -4.0 for a, w in zip(answers, windows, strict=True)]
        return torch.tensor(hits)


@dataclass
class FixedUsefulness:
    """Always `value`."""

    value: float = 4.0

    def usefulness(self, question: str, answer: str) -> float:
        return self.value


@dataclass
class JunkJudge:
    """Return junk (or raise) for every Protocol; counts calls."""

    calls: int = 0

    def classify(self, questions: Sequence[str]) -> Any:
        self.calls += 1
        return ["Z"]

    def score(self, question: str, passages: Sequence[str]) -> Any:
        self.calls += 1
        return [7.0] * len(passages)

    def support(self, question: str, answer: str, evidence: Sequence[str]) -> Any:
        self.calls += 1
        raise ValueError("garbled")

    def usefulness(self, question: str, answer: str) -> Any:
        self.calls += 1
        return 42.0


def passage(
    text: str,
    *,
    score: float | None = 0.5,
    origin: str = "local",
    title: str = "T",
    position: int = 0,
) -> Passage:
    """Return a Passage for node tests."""
    return Passage(
        hash=content_hash(text),
        text=text,
        title=title,
        source="s.md",
        position=position,
        url="https://x.org/p" if origin == "web" else None,
        origin=origin,
        query="q",
        step=0,
        score=score,
    )  # type: ignore[typeddict-item]


def make_runtime(
    context: Context | None = None, events: list[Any] | None = None
) -> Runtime[Context]:
    """Return a Runtime whose stream writer appends to `events`."""
    sink = events if events is not None else []
    return Runtime(context=context or Context(), stream_writer=sink.append)


def make_deps(**overrides: Any) -> Deps:
    """Return Deps with harmless fakes for every collaborator, overridable by name."""
    defaults: dict[str, Any] = {
        "generator": rule_model(),
        "rewriter": rule_model(default="keyword one, keyword two"),
        "retriever": FakeRetriever(documents=[], queries=[]),
        "web": FakeWebSearch(),
        "classifier": FakeClassifier(),
        "evaluator": KeywordEvaluator(),
        "support": FixedSupport(otherwise="full"),
        "usefulness": FixedUsefulness(),
    }
    return Deps(**(defaults | overrides))


@dataclass
class ScriptedServer:
    """Stands in for `xllamacpp.Server`: answers each request with `reply(request)`.

    `reply` returns (content, logprobs or None); every request is kept in `requests`.
    """

    reply: Any
    requests: list[dict[str, Any]] = field(default_factory=list)

    def handle_chat_completions(self, request: dict[str, Any], *callback: Any) -> Any:
        self.requests.append(request)
        content, logprobs = self.reply(request)
        choice: dict[str, Any] = {"message": {"content": content}, "finish_reason": "stop"}
        if logprobs is not None:
            choice["logprobs"] = {"content": logprobs}
        if callback:
            callback[0]({"choices": [{"delta": {"content": content}}]})
            return None
        return {"choices": [choice]}


def llamacpp_with(reply: Any) -> Any:
    """Return a ChatLlamaCpp over a ScriptedServer (no model file is read)."""
    from models.llamacpp import ChatLlamaCpp, LlamaCppEngine

    return ChatLlamaCpp(model_path="fake.gguf", engine=LlamaCppEngine(ScriptedServer(reply)))
