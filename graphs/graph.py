"""Graph assembly: wire the nodes, compile, and export `graph` for `langgraph.json`."""

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer, Overwrite

from graphs import routing
from graphs.context import Context
from graphs.deps import Deps
from graphs.events import Event
from graphs.state import InputState, IrcotState, State
from models.judges import ComplexityClassifier, RetrievalEvaluator, SupportChecker, UsefulnessJudge
from nodes._degrade import NODE_RETRY
from nodes.classify_complexity import classify_complexity
from nodes.condense_question import condense_question
from nodes.finalize import finalize
from nodes.generate import generate
from nodes.grade_documents import decide_crag, grade_passages
from nodes.ircot_step import ircot_step
from nodes.refine_strips import refine_strips
from nodes.reflect import reflect
from nodes.retrieve import retrieve
from nodes.rewrite_query import rewrite_for_retrieval, rewrite_query
from nodes.web_search import web_search as _web_search_node
from stores.web import WebSearch

__all__ = ["build_graph", "graph", "recorded"]

NodeFn = Callable[..., Mapping[str, Any]]
"""A node: (state, runtime, deps, **options) -> the keys it changes."""


def recorded(fn: NodeFn) -> Callable[..., dict[str, Any]]:
    """Return `fn` with what it emits recorded: the events, and every fallback's reason.

    Nodes only `emit`; this is the one place where the stream becomes `State.events` and a
    fallback's `degraded` reason joins `State.degraded` (inside a per-turn reset, too).
    """

    @wraps(fn)
    def node(state: Any, runtime: Runtime[Any], deps: Deps, **options: Any) -> dict[str, Any]:
        emitted: list[Event] = []

        def writer(payload: Any) -> None:
            emitted.append(payload)
            runtime.stream_writer(payload)

        update = dict(fn(state, runtime.override(stream_writer=writer), deps, **options))
        reasons = [e["degraded"] for e in emitted if e["type"] == "fallback" and e["degraded"]]
        for key, found in (("events", emitted), ("degraded", reasons)):
            given = update.get(key)
            if isinstance(given, Overwrite):  # a new turn: what it found replaces the old turn's
                update[key] = Overwrite([*given.value, *found])
            elif found:
                update[key] = [*(given or []), *found]
        return update

    return node


class _Bound(Protocol):
    def __call__(self, state: State, *, runtime: Runtime[Context]) -> dict[str, Any]: ...


def _bind(fn: NodeFn, deps: Deps, **options: Any) -> _Bound:
    """Give a node its collaborators, leaving the (state, runtime) signature LangGraph expects."""

    def node(state: State, *, runtime: Runtime[Context]) -> dict[str, Any]:
        if runtime.context is None:  # a caller that passed no `context=` gets the defaults
            runtime = runtime.override(context=Context())
        return recorded(fn)(state, runtime, deps, **options)

    node.__name__ = node.__qualname__ = fn.__name__
    node.__doc__ = fn.__doc__
    return node


_RETRIED: tuple[NodeFn, ...] = (retrieve, generate, _web_search_node)
"""The nodes that call a store, the web or the answer model (they degrade at the end)."""


def _add(
    builder: StateGraph[Any, Any, Any, Any], name: str, fn: NodeFn, deps: Deps, **options: Any
) -> None:
    policy = NODE_RETRY if fn in _RETRIED else None
    builder.add_node(name, _bind(fn, deps, **options), retry_policy=policy)


_IRCOT_KEYS = tuple(k for k in IrcotState.__annotations__ if k not in ("events", "degraded"))
"""What the parent hands the IRCoT loop: its slice of `State`, without events or reasons."""


def _ircot_node(deps: Deps) -> Callable[..., dict[str, Any]]:
    """Return the parent's `ircot` node: the loop called on its slice of the state.

    The loop records only its own events and reasons; the parent appends them to its own.
    """
    loop = _ircot(deps)

    def ircot(state: State, *, runtime: Runtime[Context]) -> dict[str, Any]:
        handed = {key: state[key] for key in _IRCOT_KEYS if key in state}  # type: ignore[literal-required]
        done: dict[str, Any] = loop.invoke(handed, context=runtime.context or Context())
        return done

    return ircot


def _ircot(deps: Deps) -> CompiledStateGraph[Any, Any, Any, Any]:
    """IRCoT's loop: retrieve (within the paragraph cap), grade, refine, one reasoning step."""
    loop = StateGraph(IrcotState, context_schema=Context)
    _add(loop, "retrieve", retrieve, deps, paragraph_cap=True)
    _add(loop, "grade_documents", grade_passages, deps)
    _add(loop, "refine_strips", refine_strips, deps)
    _add(loop, "ircot_step", ircot_step, deps)
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
    web_search: WebSearch | None = None,
    classifier: ComplexityClassifier | None = None,
    evaluator: RetrievalEvaluator | None = None,
    action_evaluator: RetrievalEvaluator | None = None,
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
        action_evaluator: A second evaluator that alone grades for CRAG's action.
        support: Support checker (IsSup).
        usefulness: Usefulness judge (IsUse).
        checkpointer: A saver, for conversations that span turns.
    """
    deps = Deps(
        generator=generator,
        rewriter=rewriter,
        retriever=retriever,
        web=web_search,
        classifier=classifier,
        evaluator=evaluator,
        action_evaluator=action_evaluator,
        support=support,
        usefulness=usefulness,
    )
    builder = StateGraph(State, input_schema=InputState, context_schema=Context)
    nodes: dict[str, NodeFn] = {
        "condense_question": condense_question,
        "classify_complexity": classify_complexity,
        "retrieve": retrieve,
        "grade_documents": decide_crag,
        "refine_strips": refine_strips,
        "rewrite_query": rewrite_query,
        "web_search": _web_search_node,
        "generate": generate,
        "reflect": reflect,
        "rewrite_for_retrieval": rewrite_for_retrieval,
        "finalize": finalize,
    }
    for name, fn in nodes.items():
        _add(builder, name, fn, deps)
    builder.add_node("ircot", _ircot_node(deps))
    builder.add_edge(START, "condense_question")
    builder.add_edge("condense_question", "classify_complexity")
    builder.add_conditional_edges("classify_complexity", routing.route_question)
    builder.add_edge("retrieve", "grade_documents")
    builder.add_conditional_edges("grade_documents", routing.route_crag)
    builder.add_conditional_edges("refine_strips", routing.route_after_refine)
    builder.add_edge("rewrite_query", "web_search")
    builder.add_edge("web_search", "refine_strips")
    builder.add_edge("ircot", "generate")
    builder.add_edge("generate", "reflect")
    builder.add_conditional_edges("reflect", routing.route_after_reflect)
    builder.add_edge("rewrite_for_retrieval", "retrieve")
    builder.add_edge("finalize", END)
    return builder.compile(checkpointer=checkpointer, name="acrag")


graph = build_graph()
"""The graph `langgraph.json` exports (compiled without a checkpointer; the server brings one)."""
