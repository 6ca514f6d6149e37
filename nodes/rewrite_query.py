"""Nodes `rewrite_query` and `rewrite_for_retrieval`: the question as at most three keywords.

CRAG rewrites for the web; reflection's retry rewrites for the local index. Either way the
keywords may use only the question's own words (checked), so no invented fact reaches a query.
An Ambiguous retrieval may search with the question as asked instead (`ambiguous_query`).
"""

import re
import unicodedata
from typing import Literal, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import RewriteEvent, emit
from graphs.state import State
from models.text import content_tokens
from nodes._common import ask_judge, call_model, text_of
from prompts.rewrite import REWRITE_EXAMPLES, REWRITE_SYSTEM

__all__ = [
    "MAX_KEYWORDS",
    "QueryUpdate",
    "fallback_keywords",
    "parse_keywords",
    "rewrite_for_retrieval",
    "rewrite_query",
    "within_question",
]

MAX_KEYWORDS = 3
_MAX_WORDS_PER_KEYWORD = 5
_NAME = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:of|the|de|von)?\s*[A-Z][\w'-]*)*")
_QUESTION_WORDS = {"What", "Who", "When", "Where", "Which", "Why", "How", "In", "Is", "Are", "Did"}


def fallback_keywords(question: str) -> str:
    """Return up to three keywords picked without a model: names first, then content words."""
    names = [n for n in _NAME.findall(question) if n not in _QUESTION_WORDS]
    taken = content_tokens(" ".join(names))
    words = [
        w
        for w in re.findall(r"[\w'-]+", question)
        if w.lower() in content_tokens(w) and w.lower() not in taken and w not in _QUESTION_WORDS
    ]
    return ", ".join([*names, *words][:MAX_KEYWORDS]) or question


def _messages(question: str) -> list[BaseMessage]:
    messages: list[BaseMessage] = [SystemMessage(REWRITE_SYSTEM)]
    for example, keywords in REWRITE_EXAMPLES:
        messages += [HumanMessage(example), AIMessage(keywords)]
    return [*messages, HumanMessage(question)]


def within_question(keywords: str | None, question: str) -> bool:
    """Accept keywords made only of the question's own words (no invented facts).

    A word may change its ending: "creator" stands for "created", "opened" for "open" (the
    first five letters, or four when one of the two words has only four); accents do not
    count ("Jose" for "José").
    """
    if not keywords:
        return False
    asked = content_tokens(_unaccented(question))
    words = content_tokens(_unaccented(keywords))
    return bool(words) and all(any(_same_word(w, a) for a in asked) for w in words)


def _unaccented(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _same_word(word: str, asked: str) -> bool:
    n = min(5, len(word), len(asked))
    return word == asked or (n >= 4 and word[:n] == asked[:n])


def parse_keywords(reply: str) -> str | None:
    """Return "k1, k2, k3" from a model reply, or None if it holds no usable keywords."""
    lines = [line for line in reply.strip().splitlines() if line.strip()]
    if not lines:
        return None
    first = re.sub(r"^\s*keywords?\s*:\s*", "", lines[0], flags=re.IGNORECASE)
    words = [w.strip(" .\"'") for w in first.split(",")]
    if any(len(w.split()) > _MAX_WORDS_PER_KEYWORD for w in words):
        return None  # a sentence, not keywords
    words = [w for w in words if w][:MAX_KEYWORDS]
    return ", ".join(words) or None


def _searches_as_asked(state: State, context: Context) -> bool:
    """Ambiguous keeps the local strips: its web search need not cost an LLM call."""
    return state.get("crag_action") == "Ambiguous" and context.ambiguous_query == "question"


class QueryUpdate(TypedDict):
    """What the rewrite nodes write."""

    search_query: str


def _keywords(question: str, runtime: Runtime[Context], deps: Deps) -> str | None:
    """Ask the rewriter for keywords; None when it fails or invents a word."""
    return ask_judge(
        runtime,
        node="rewrite_query",
        judge="rewriter",
        get=lambda: deps.rewriter_for(runtime.context),
        call=lambda model: parse_keywords(
            text_of(
                call_model(
                    model, _messages(question), max_tokens=24, name="rewrite_query", stop=["\n\n"]
                )
            )
        ),
        check=lambda found: within_question(found, question),
        used="the question's own keywords",
    )


def _rewrite(
    state: State, runtime: Runtime[Context], deps: Deps, purpose: Literal["web", "retrieve"]
) -> QueryUpdate:
    question = state["standalone_question"]
    if purpose == "web" and _searches_as_asked(state, runtime.context):
        query, note = question, "as asked: Ambiguous keeps the local strips"
    elif keywords := _keywords(question, runtime, deps):
        query, note = keywords, None
    else:
        query, note = fallback_keywords(question), "kept the question's own keywords"
    shown = RewriteEvent(
        type="rewrite", node="rewrite_query", query=query, purpose=purpose, note=note
    )
    emit(runtime, shown)
    return QueryUpdate(search_query=query)


def rewrite_query(state: State, runtime: Runtime[Context], deps: Deps) -> QueryUpdate:
    """Write keywords for CRAG's web search."""
    return _rewrite(state, runtime, deps, "web")


def rewrite_for_retrieval(state: State, runtime: Runtime[Context], deps: Deps) -> QueryUpdate:
    """Write keywords for another local retrieval, as reflection asked."""
    return _rewrite(state, runtime, deps, "retrieve")
