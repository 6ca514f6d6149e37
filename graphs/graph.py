"""Graph assembly: wire the nodes, compile, and export `graph` for `langgraph.json`."""

from collections.abc import Callable
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer, RetryPolicy

from graphs import routing
from graphs.context import Context
from graphs.deps import Deps
from graphs.state import InputState, State
from models.judges import ComplexityClassifier, RetrievalEvaluator, SupportChecker, UsefulnessJudge
from nodes._degrade import NODE_RETRY
from nodes.classify_complexity import classify_complexity
from nodes.condense_question import condense_question
from nodes.finalize import finalize
from nodes.generate import generate
from nodes.grade_documents import grade_documents
from nodes.ircot_step import ircot_step
from nodes.refine_strips import refine_strips
from nodes.reflect import reflect
from nodes.retrieve import retrieve
from nodes.rewrite_query import rewrite_query
from nodes.web_search import web_search as _web_search_node

__all__ = ["build_graph", "graph"]

NodeFn = Callable[[State, Runtime[Context], Deps], dict[str, Any]]


class _Bound(Protocol):
    def __call__(self, state: State, *, runtime: Runtime[Context]) -> dict[str, Any]: ...


def _bind(fn: NodeFn, deps: Deps) -> _Bound:
    """Give a node its collaborators, leaving the (state, runtime) signature LangGraph expects."""

    def node(state: State, *, runtime: Runtime[Context]) -> dict[str, Any]:
        if runtime.context is None:  # a caller that passed no `context=` gets the defaults
            runtime = runtime.override(context=Context())
        return fn(state, runtime, deps)

    node.__name__ = node.__qualname__ = fn.__name__
    node.__doc__ = fn.__doc__
    return node


def _retry_policy(fn: NodeFn) -> RetryPolicy | None:
    """Retry the nodes that call a store, the web or the answer model (they degrade at the end)."""
    return NODE_RETRY if fn in (retrieve, generate, _web_search_node) else None


def _ircot(deps: Deps) -> CompiledStateGraph[Any, Any, Any, Any]:
    """IRCoT's loop: retrieve, grade and refine, then one reasoning step; repeat until done."""
    loop = StateGraph(State, context_schema=Context)
    for fn in (retrieve, grade_documents, refine_strips, ircot_step):
        loop.add_node(fn.__name__, _bind(fn, deps), retry_policy=_retry_policy(fn))
    loop.add_edge(START, "retrieve")
    loop.add_edge("retrieve", "grade_documents")
    loop.add_edge("grade_documents", "refine_strips")
    loop.add_edge("refine_strips", "ircot_step")
    loop.add_conditional_edges("ircot_step", routing.route_ircot)
    return loop.compile(name="ircot")


def build_graph(
    *,
    generator: BaseChatModel | None = None,
    rewriter: BaseChatModel | None = None,
    retriever: BaseRetriever | None = None,
    web_search: Any | None = None,
    classifier: ComplexityClassifier | None = None,
    evaluator: RetrievalEvaluator | None = None,
    support: SupportChecker | None = None,
    usefulness: UsefulnessJudge | None = None,
    checkpointer: Checkpointer = None,
) -> CompiledStateGraph[State, Context, InputState, State]:
    """Compile the acrag graph; anything not injected is built from each run's `Context`.

    Args:
        generator: Model for answers and IRCoT sentences.
        rewriter: Model for follow-up condensing and keyword rewrites.
        retriever: The local retriever.
        web_search: A `stores.web.WebSearch`.
        classifier: Complexity classifier.
        evaluator: Retrieval evaluator.
        support: Support checker (IsSup).
        usefulness: Usefulness judge (IsUse).
        checkpointer: A saver, for conversations that span turns.
    """
    deps = Deps(
        generator, rewriter, retriever, web_search, classifier, evaluator, support, usefulness
    )
    builder = StateGraph(State, input_schema=InputState, context_schema=Context)
    nodes: list[NodeFn] = [
        condense_question,
        classify_complexity,
        retrieve,
        grade_documents,
        refine_strips,
        rewrite_query,
        _web_search_node,
        generate,
        reflect,
        finalize,
    ]
    for fn in nodes:
        builder.add_node(fn.__name__, _bind(fn, deps), retry_policy=_retry_policy(fn))
    builder.add_node("ircot", _ircot(deps))
    builder.add_edge(START, "condense_question")
    builder.add_edge("condense_question", "classify_complexity")
    builder.add_conditional_edges("classify_complexity", routing.route_question)
    builder.add_edge("retrieve", "grade_documents")
    builder.add_conditional_edges("grade_documents", routing.route_crag)
    builder.add_conditional_edges("refine_strips", routing.route_after_refine)
    builder.add_conditional_edges("rewrite_query", routing.route_after_rewrite)
    builder.add_edge("web_search", "refine_strips")
    builder.add_edge("ircot", "generate")
    builder.add_edge("generate", "reflect")
    builder.add_conditional_edges("reflect", routing.route_after_reflect)
    builder.add_edge("finalize", END)
    return builder.compile(checkpointer=checkpointer, name="acrag")


graph = build_graph()
"""The graph `langgraph.json` exports (compiled without a checkpointer; the server brings one)."""
