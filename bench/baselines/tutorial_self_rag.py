"""Baseline `tutorial-self-rag`: LangGraph's "Self-RAG" tutorial, on acrag's blocks.

Source: langchain-ai/langgraph, `examples/rag/langgraph_self_rag.ipynb` at commit
f09cfe8ffc1eeffd68f4b628ed69c30f7cad229f (last changed in fbcb8a91). Its control flow:

    START -> retrieve -> grade_documents --none left--> transform_query -> retrieve
                                         --some left--> generate
    generate --hallucination grader "no"--> generate                      ("not supported")
             --grounded, answer grader "no"--> transform_query -> retrieve ("not useful")
             --grounded, answer grader "yes"--> END                        ("useful")

Every grader is the LLM answering "yes" or "no"; the rewritten question replaces the question.

Ours: the tutorial grades inside its conditional edge; here `grade_generation` grades, stores
the tutorial's edge label in `decision`, and a pure router reads it. The tutorial has no loop
cap (its runs end in `GraphRecursionError` once LangGraph's recursion limit is hit); here
every loop-back (a rewrite or a regeneration) counts against `Context.max_retries`, the cap
acrag's own reflection retries use, and the run also stops before the recursion limit. At
the cap the run ends with the last generation, ungraded (no grade could change it); if no
document survived grading by then, the reader answers without documents.
"""

from typing import Any, Literal

from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.managed import RemainingSteps
from langgraph.runtime import Runtime

from bench.baselines._tutorial import (
    TutorialInput,
    TutorialState,
    add_node,
    ask_grader,
    format_docs,
    generate,
    retrieve,
    rewrite_question,
)
from bench.baselines._tutorial import grade_documents as grade_all
from graphs.context import Context
from graphs.deps import Deps
from graphs.events import RetryEvent, cap_reached, emit
from prompts.framing import as_data
from prompts.tutorial import (
    ANSWER_GRADER_HUMAN,
    ANSWER_GRADER_SYSTEM,
    HALLUCINATION_GRADER_HUMAN,
    HALLUCINATION_GRADER_SYSTEM,
    REWRITER_RETRIEVAL_SYSTEM,
    SELF_RAG_GRADER_SYSTEM,
)

__all__ = [
    "Decision",
    "SelfRagState",
    "build_tutorial_self_rag",
    "decide_to_generate",
    "grade_generation_v_documents_and_question",
]

Decision = Literal["generate", "transform_query", "useful", "not useful", "not supported", "end"]
"""The tutorial's edge labels, plus `end` when the loop cap stops the run."""

LOOP_STEPS = 5
"""Super-steps of the longest loop (transform_query, retrieve, grade_documents, generate,
grade_generation): a loop starts only if that many steps remain before the recursion limit."""


class SelfRagState(TutorialState, total=False):
    """The Self-RAG tutorial's state, with its decisions stored."""

    decision: Decision
    """What the last grading node decided (the tutorial's edge label)."""
    remaining_steps: RemainingSteps


def _may_loop(state: SelfRagState, context: Context) -> bool:
    retries_left = state.get("retries", 0) < context.max_retries
    return retries_left and state.get("remaining_steps", LOOP_STEPS + 1) > LOOP_STEPS


def _loop(
    state: SelfRagState, runtime: Runtime[Context], decision: Decision, *, node: str
) -> dict[str, Any]:
    """Take one loop-back: count it and say why."""
    attempt = state.get("retries", 0) + 1
    action: Literal["regenerate", "rewrite"] = (
        "regenerate" if decision == "not supported" else "rewrite"
    )
    shown = RetryEvent(type="retry", node=node, attempt=attempt, action=action, why=decision)
    emit(runtime, shown)
    return {"decision": decision, "retries": attempt}


def _capped(runtime: Runtime[Context], node: str, why: str) -> None:
    emit(runtime, cap_reached(node, "max_retries", runtime.context.max_retries, why))


def grade_documents(state: SelfRagState, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Keep the documents graded relevant; with none left, rewrite the question (within the cap)."""
    graded = grade_all(state, runtime, deps, system=SELF_RAG_GRADER_SYSTEM)
    update: dict[str, Any] = {
        "documents": graded.kept,
        "junk_grades": state.get("junk_grades", 0) + graded.junk,
    }
    if graded.kept:
        return update | {"decision": "generate"}
    if _may_loop(state, runtime.context):
        return update | _loop(state, runtime, "transform_query", node="grade_documents")
    why = "no document was graded relevant: answering without documents"
    _capped(runtime, "grade_documents", why)
    return update | {"decision": "generate"}


def _verdict(state: SelfRagState, runtime: Runtime[Context], deps: Deps) -> tuple[Decision, int]:
    """Return the tutorial's label for the generation and how many grades were junk."""
    model = deps.generator_for(runtime.context)
    generation = as_data(state.get("generation", ""))
    facts = format_docs(state.get("documents") or [])
    human = HALLUCINATION_GRADER_HUMAN.format(documents=facts, generation=generation)
    grounded = ask_grader(model, HALLUCINATION_GRADER_SYSTEM, human, name="grade_hallucination")
    if grounded != "yes":
        return "not supported", int(grounded is None)
    human = ANSWER_GRADER_HUMAN.format(question=state["question"], generation=generation)
    resolves = ask_grader(model, ANSWER_GRADER_SYSTEM, human, name="grade_answer")
    return ("useful" if resolves == "yes" else "not useful"), int(resolves is None)


def grade_generation(state: SelfRagState, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Grade the generation for grounding, then for answering the question; loop within the cap."""
    if not _may_loop(state, runtime.context):
        why = "the last generation is the answer, ungraded"
        _capped(runtime, "grade_generation", why)
        return {"decision": "end"}
    decision, junk = _verdict(state, runtime, deps)
    update: dict[str, Any] = {"junk_grades": state.get("junk_grades", 0) + junk}
    if decision == "useful":
        return update | {"decision": decision}
    return update | _loop(state, runtime, decision, node="grade_generation")


def transform_query(state: SelfRagState, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Rewrite the question for the next retrieval."""
    return rewrite_question(
        state, runtime, deps, system=REWRITER_RETRIEVAL_SYSTEM, purpose="retrieve"
    )


def decide_to_generate(state: SelfRagState) -> Literal["transform_query", "generate"]:
    """Answer from the documents left, or rewrite the question when none are."""
    match state.get("decision"):
        case "generate":
            return "generate"
        case "transform_query":
            return "transform_query"
    raise ValueError(f"unknown decision after grading documents: {state.get('decision')!r}")


def grade_generation_v_documents_and_question(
    state: SelfRagState,
) -> Literal["generate", "transform_query", "__end__"]:
    """Regenerate an unsupported answer, rewrite for an unhelpful one, else finish."""
    match state.get("decision"):
        case "not supported":
            return "generate"
        case "not useful":
            return "transform_query"
        case "useful" | "end":
            return "__end__"
    raise ValueError(f"unknown decision after grading the answer: {state.get('decision')!r}")


def build_tutorial_self_rag(
    deps: Deps | None = None,
) -> CompiledStateGraph[Any, Context, Any, Any]:
    """Compile the Self-RAG tutorial's graph; anything `deps` lacks is built from the Context."""
    deps = deps or Deps()
    builder = StateGraph(SelfRagState, input_schema=TutorialInput, context_schema=Context)
    add_node(builder, "retrieve", retrieve, deps)
    add_node(builder, "grade_documents", grade_documents, deps)
    add_node(builder, "generate", generate, deps)
    add_node(builder, "grade_generation", grade_generation, deps)
    add_node(builder, "transform_query", transform_query, deps)
    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "grade_documents")
    builder.add_conditional_edges("grade_documents", decide_to_generate)
    builder.add_edge("transform_query", "retrieve")
    builder.add_edge("generate", "grade_generation")
    builder.add_conditional_edges("grade_generation", grade_generation_v_documents_and_question)
    return builder.compile(name="tutorial-self-rag")
