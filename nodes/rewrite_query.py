"""Node `rewrite_query`: CRAG's rewrite of the question into at most three search keywords."""

import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import event
from graphs.state import State
from models.judges_heuristic import content_tokens
from nodes._common import call_model, text_of, with_retries
from prompts.rewrite import REWRITE_EXAMPLES, REWRITE_SYSTEM

__all__ = ["MAX_KEYWORDS", "fallback_keywords", "parse_keywords", "rewrite_query"]

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


def _related(keywords: str | None, question: str) -> bool:
    """Reject keywords that share no word with the question (e.g. a copied example)."""
    return keywords is not None and bool(content_tokens(keywords) & content_tokens(question))


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


def rewrite_query(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Write keywords for the web search, or for a new retrieval when reflection asked for one."""
    context = runtime.context
    question = state["standalone_question"]
    purpose = "retrieve" if state.get("retry_action") == "rewrite" else "web"
    model = deps.rewriter_for(context)
    keywords, problem = with_retries(
        lambda: parse_keywords(
            text_of(
                call_model(
                    model, _messages(question), max_tokens=24, name="rewrite_query", stop=["\n\n"]
                )
            )
        ),
        attempts=context.judge_attempts,
        check=lambda k: _related(k, question),
    )
    events = []
    if keywords is None:
        keywords = fallback_keywords(question)
        events.append(
            event(
                runtime,
                "fallback",
                "rewrite_query",
                judge="rewriter",
                problem=problem,
                used=keywords,
            )
        )
    query = keywords
    events.append(event(runtime, "rewrite", "rewrite_query", query=query, purpose=purpose))
    return {
        "search_query": query,
        "rewrite_purpose": purpose,
        "retry_action": None,
        "events": events,
    }
