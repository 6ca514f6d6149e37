"""Baseline `tutorial-crag`: LangGraph's "Corrective RAG (CRAG)" tutorial, on acrag's blocks.

Source: langchain-ai/langgraph, `examples/rag/langgraph_crag.ipynb` at commit
f09cfe8ffc1eeffd68f4b628ed69c30f7cad229f (last changed in fbcb8a91). Its control flow:

    START -> retrieve -> grade_documents --any "no"--> transform_query -> web_search -> generate
                                         --all "yes"-> generate -> END

`grade_documents` asks the LLM "yes" or "no" for each document and drops every "no"; one
"no" is enough to rewrite the question for web search and append the web results. There are
no evaluator scores, thresholds, knowledge strips or reflection. As in the tutorial, the
rewritten question replaces the question, so the answer is written for it.

Ours: the tutorial's "Yes"/"No" string flag is a typed `web_search: bool` stored by the
grading node and read by a pure router; retrieval, web search and the answer prompt are
acrag's (see `bench.baselines._tutorial`).
"""

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from bench.baselines._tutorial import (
    TutorialInput,
    TutorialState,
    add_node,
    generate,
    retrieve,
    rewrite_question,
    web_search,
)
from bench.baselines._tutorial import grade_documents as grade_all
from graphs.context import Context
from graphs.deps import Deps
from prompts.tutorial import CRAG_GRADER_SYSTEM, REWRITER_WEB_SYSTEM

__all__ = ["CragState", "build_tutorial_crag", "decide_to_generate"]


class CragState(TutorialState, total=False):
    """The CRAG tutorial's state."""

    web_search: bool
    """A document was graded "no": rewrite the question and search the web."""


def grade_documents(state: CragState, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Keep the documents the reader grades relevant; any other one calls for web search."""
    graded = grade_all(state, runtime, deps, system=CRAG_GRADER_SYSTEM)
    return {
        "documents": graded.kept,
        "web_search": graded.dropped > 0,
        "junk_grades": state.get("junk_grades", 0) + graded.junk,
    }


def transform_query(state: CragState, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Rewrite the question for web search."""
    return rewrite_question(state, runtime, deps, system=REWRITER_WEB_SYSTEM, purpose="web")


def decide_to_generate(state: CragState) -> Literal["transform_query", "generate"]:
    """Go to the web if any document was dropped, else answer."""
    return "transform_query" if state.get("web_search") else "generate"


def build_tutorial_crag(deps: Deps | None = None) -> CompiledStateGraph[Any, Context, Any, Any]:
    """Compile the CRAG tutorial's graph; anything `deps` lacks is built from each run's Context."""
    deps = deps or Deps()
    builder = StateGraph(CragState, input_schema=TutorialInput, context_schema=Context)
    add_node(builder, "retrieve", retrieve, deps)
    add_node(builder, "grade_documents", grade_documents, deps)
    add_node(builder, "generate", generate, deps)
    add_node(builder, "transform_query", transform_query, deps)
    add_node(builder, "web_search_node", web_search, deps)
    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "grade_documents")
    builder.add_conditional_edges("grade_documents", decide_to_generate)
    builder.add_edge("transform_query", "web_search_node")
    builder.add_edge("web_search_node", "generate")
    builder.add_edge("generate", END)
    return builder.compile(name="tutorial-crag")
