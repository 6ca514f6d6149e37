"""What the two tutorial baselines share: their state, their LLM grader and acrag's blocks.

The tutorials' building blocks are swapped for acrag's, through the same `Deps` the graph
uses: our `retrieve` and `web_search` nodes (same retriever, index, web backend and failure
handling), our answer prompt and answer clean-up, and `call_model`. Grading and rewriting use
the tutorials' prompts verbatim, with documents shown bare as the tutorials show them
(`prompts.tutorial` says why); the reader (`Deps.generator_for`) grades, the rewriter role
(`Deps.rewriter_for`) rewrites.

The tutorials grade through `with_structured_output` into a free-text `binary_score` field and
keep a document (or a generation) only when it equals "yes". Here the grader answers in plain
text, which every chat model supports, and `parse_binary_score` reads its first "yes" or "no"
word, so case, quotes, JSON braces and a reason after the word do not matter. A reply with
neither word counts as "no", which is what the tutorials' `grade == "yes"` test does with any
other value; such replies are counted in `junk_grades`.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, NamedTuple, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import StateGraph
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import Event, RewriteEvent, emit
from graphs.graph import recorded
from graphs.state import Passage, State, add_events, add_reasons
from nodes._common import call_model, text_of
from nodes._degrade import NODE_RETRY
from nodes.generate import answer_messages, clean_answer, retry_options
from nodes.retrieve import retrieve as retrieve_node
from nodes.web_search import web_search as web_search_node
from prompts.framing import as_data
from prompts.tutorial import DOCUMENT_GRADER_HUMAN, REWRITER_HUMAN

__all__ = [
    "BinaryScore",
    "Graded",
    "TutorialInput",
    "TutorialState",
    "add_node",
    "ask_grader",
    "format_docs",
    "generate",
    "grade_documents",
    "parse_binary_score",
    "retrieve",
    "rewrite_question",
    "web_search",
]

BinaryScore = Literal["yes", "no"]

GRADE_TOKENS = 16
"""Enough for "yes" or "no" and a few words of reason."""
REWRITE_TOKENS = 64
"""Enough for one improved question."""

_WORD = re.compile(r"[a-z]+")


class TutorialInput(TypedDict):
    """What a caller sends: the question."""

    question: str


class TutorialState(TypedDict, total=False):
    """The tutorials' `GraphState`, plus the counters the benchmark reads."""

    question: str
    """The question; `transform_query` replaces it with the rewrite, as the tutorials do (the
    answer is then written for, and graded against, the rewritten question)."""
    documents: list[Passage]
    """The documents so far, overwritten: retrieval replaces them, grading drops some."""
    generation: str
    """The reader's last reply, raw."""
    answer: str
    """The last generation, cleaned as acrag cleans its answers (what the benchmark scores)."""
    junk_grades: int
    """Grader replies with neither "yes" nor "no" (read as "no")."""
    retries: int
    """Loop-backs taken (Self-RAG's rewrites and regenerations; CRAG has no loop)."""
    retrievals: int
    """Local retrievals made (the benchmark adds the web searches from the events)."""
    index_failed: bool
    """The local index failed (retries spent): later retrievals try it once."""
    events: Annotated[list[Event], add_events]
    degraded: Annotated[list[str], add_reasons]


NodeFn = Callable[[Any, Runtime[Context], Deps], Mapping[str, Any]]


def add_node(builder: StateGraph[Any, Any, Any, Any], name: str, fn: NodeFn, deps: Deps) -> None:
    """Add `fn` as node `name` with its collaborators; store and model nodes get retries.

    As in acrag's graph, what the node emits is recorded in `events` (see `recorded`).
    """

    def node(state: Any, *, runtime: Runtime[Context]) -> dict[str, Any]:
        if runtime.context is None:  # a caller that passed no `context=` gets the defaults
            runtime = runtime.override(context=Context())
        return recorded(fn)(state, runtime, deps)

    node.__name__ = node.__qualname__ = name
    policy = NODE_RETRY if fn in (retrieve, web_search) else None
    builder.add_node(name, node, retry_policy=policy)


def format_docs(documents: Sequence[Passage]) -> str:
    """Return the documents' texts separated by blank lines (the tutorials' `format_docs`)."""
    return "\n\n".join(as_data(d["text"]) for d in documents)


def parse_binary_score(reply: str) -> BinaryScore | None:
    """Return the first "yes" or "no" word of a grader's reply, or None if it has neither."""
    for word in _WORD.findall(reply.lower()):
        if word == "yes":
            return "yes"
        if word == "no":
            return "no"
    return None


def ask_grader(model: BaseChatModel, system: str, human: str, *, name: str) -> BinaryScore | None:
    """Ask one of the tutorials' yes/no graders; None means the reply was junk."""
    messages = [SystemMessage(system), HumanMessage(human)]
    return parse_binary_score(
        text_of(call_model(model, messages, max_tokens=GRADE_TOKENS, name=name))
    )


class Graded(NamedTuple):
    """The documents graded "yes", and how many were dropped or got a junk grade."""

    kept: list[Passage]
    dropped: int
    junk: int


def grade_documents(
    state: TutorialState, runtime: Runtime[Context], deps: Deps, *, system: str
) -> Graded:
    """Grade every document yes/no for the question with the reader; keep the "yes" ones."""
    model = deps.generator_for(runtime.context)
    documents = state.get("documents") or []
    kept, junk = [], 0
    for document in documents:
        human = DOCUMENT_GRADER_HUMAN.format(
            document=as_data(document["text"]), question=state["question"]
        )
        score = ask_grader(model, system, human, name="grade_documents")
        junk += score is None
        if score == "yes":
            kept.append(document)
    return Graded(kept, len(documents) - len(kept), junk)


def retrieve(state: TutorialState, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Retrieve top-k passages for the question with acrag's node; they replace the documents."""
    view = State(
        standalone_question=state["question"],
        retrievals=state.get("retrievals", 0),
        index_failed=state.get("index_failed", False),
    )
    found = retrieve_node(view, runtime, deps)
    update = {"documents": found["passages"], "retrievals": found["retrievals"]}
    return update | ({"index_failed": True} if found.get("index_failed") else {})


def web_search(state: TutorialState, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Search the web for the current question with acrag's node; results join the documents.

    The tutorial joins the results into one document; acrag's node keeps each page's
    paragraphs as passages, as it does for every strategy.
    """
    view = State(standalone_question=state["question"], retrievals=state.get("retrievals", 0))
    found = web_search_node(view, runtime, deps)
    return {
        "documents": [*(state.get("documents") or []), *found["passages"]],
        "degraded": found["degraded"],
    }


def generate(state: TutorialState, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Answer the current question from the documents with acrag's answer prompt.

    After a loop-back (`retries` above zero) the answer is sampled, as acrag's own `generate`
    samples after a reflection retry: at temperature 0 a regeneration would repeat the answer
    it replaces (and the benchmark's LLM cache would return it without running the model).
    """
    context = runtime.context
    short = context.answer_style == "short"
    messages = answer_messages(state["question"], state.get("documents") or [], short=short)
    retries = state.get("retries", 0)
    reply = call_model(
        deps.generator_for(context),
        messages,
        max_tokens=context.max_answer_tokens,
        name="generate",
        **(retry_options(retries) if retries else {}),
    )
    generation = text_of(reply)
    return {"generation": generation, "answer": clean_answer(generation, short=short)}


def rewrite_question(
    state: TutorialState,
    runtime: Runtime[Context],
    deps: Deps,
    *,
    system: str,
    purpose: Literal["web", "retrieve"],
) -> dict[str, Any]:
    """Rewrite the question with the tutorial's re-writer; it replaces the question."""
    question = state["question"]
    messages = [SystemMessage(system), HumanMessage(REWRITER_HUMAN.format(question=question))]
    model = deps.rewriter_for(runtime.context)
    better = text_of(call_model(model, messages, max_tokens=REWRITE_TOKENS, name="transform_query"))
    note = None if better else "the re-writer returned nothing: kept the question"
    shown = RewriteEvent(
        type="rewrite",
        node="transform_query",
        query=better or question,
        purpose=purpose,
        note=note,
    )
    emit(runtime, shown)
    return {"question": better or question}
