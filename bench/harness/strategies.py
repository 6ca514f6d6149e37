"""The strategies a benchmark compares, as overrides of the graph's run configuration.

Fixed strategies force Adaptive-RAG's route; "plain" retrieval turns CRAG's correction off
by making every retrieval Correct and keeping whole passages as knowledge, and turns Self-RAG
reflection off. `adaptive-oracle` runs nothing: it is read from the other strategies' results.
The `BASELINES` are not acrag: they are LangGraph's CRAG and Self-RAG tutorials, each run as a
graph of its own (`bench.baselines`) over the same models and stores, configured by the same
Context (retrieval, web backend, answer style and token cap, `max_retries` for loops).
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from models.errors import UserError

__all__ = [
    "BASELINES",
    "ORACLE",
    "DESCRIPTIONS",
    "ORACLE_LADDER",
    "STRATEGIES",
    "context_overrides",
    "ordered_strategies",
    "parse_strategies",
]

ORACLE = "adaptive-oracle"
ORACLE_LADDER = ("no-retrieval", "single", "ircot")
"""Adaptive-RAG's routes A, B and C, simplest first: what the oracle chooses from."""

BASELINES = ("tutorial-crag", "tutorial-self-rag")
"""Peer baselines: the LangGraph tutorials' graphs, not configurations of acrag's."""

_PLAIN: dict[str, Any] = {
    "upper_threshold": -1.0,  # any score counts as Correct: no web search, no rewrite
    "lower_threshold": -1.0,
    "strip_mode": "passage",  # no decompose-recompose: whole passages are the knowledge
    "strip_threshold": -1.0,
    "reflect": False,
}

STRATEGIES: dict[str, dict[str, Any]] = {
    "no-retrieval": {"route": "A", "reflect": False},
    "single": {"route": "B", **_PLAIN},
    "ircot": {"route": "C", **_PLAIN},
    "crag": {"route": "B", "reflect": False},
    "self-crag": {"route": "B", "reflect": True},
    "adaptive": {"route": "auto", **_PLAIN},
    "acrag": {"route": "auto", "reflect": True},
    # CRAG with its action forced, to choose thresholds by answer accuracy
    # (bench.suites.crag_sweep):
    "crag-correct": {
        "route": "B",
        "reflect": False,
        "upper_threshold": -1.0,
        "lower_threshold": -1.0,
    },
    "crag-incorrect": {
        "route": "B",
        "reflect": False,
        "upper_threshold": 1.0,
        "lower_threshold": 1.0,
    },
    "crag-ambiguous": {
        "route": "B",
        "reflect": False,
        "upper_threshold": 1.0,
        "lower_threshold": -1.0,
    },
    **{name: {} for name in BASELINES},  # their own graphs: the Context only sets shared blocks
}
"""Context overrides per runnable strategy; `acrag` is the full graph (routes, CRAG, reflection)."""

DESCRIPTIONS = {
    "no-retrieval": "route A: the model answers alone",
    "single": "route B, plain single-step RAG (no CRAG correction, no reflection)",
    "ircot": "route C, IRCoT multi-step retrieval (no CRAG correction, no reflection)",
    "crag": "route B with CRAG's evaluator, refinement and web search",
    "self-crag": "CRAG plus Self-RAG reflection",
    "adaptive": "the complexity classifier picks A, B or C (plain retrieval)",
    "acrag": "the full graph: classifier, CRAG and reflection",
    "crag-correct": "CRAG forced Correct: refined local strips only",
    "crag-incorrect": "CRAG forced Incorrect: keyword rewrite and web results only",
    "crag-ambiguous": "CRAG forced Ambiguous: local strips plus web results",
    "tutorial-crag": "baseline: LangGraph's CRAG tutorial (LLM yes/no grades, web on any no)",
    "tutorial-self-rag": "baseline: LangGraph's Self-RAG tutorial (yes/no graders, bounded loops)",
    ORACLE: "per question, the simplest of A/B/C that answered correctly in this run",
}


def ordered_strategies(names: Iterable[str]) -> list[str]:
    """Return the distinct `names` in the order `DESCRIPTIONS` lists them, unknown ones last."""
    known = list(DESCRIPTIONS)
    return sorted(set(names), key=lambda n: (known.index(n) if n in known else len(known), n))


def context_overrides(strategy: str, base: Mapping[str, Any]) -> dict[str, Any]:
    """Return the Context settings for `strategy` on top of the `base` settings.

    Plain strategies keep every retrieved passage whole, so the number of strips kept is raised
    to the most passages a run can hold.
    """
    if strategy not in STRATEGIES:
        raise UserError(f"unknown strategy {strategy!r}; choose from {', '.join(DESCRIPTIONS)}")
    overrides = dict(STRATEGIES[strategy])
    if overrides.get("strip_mode") == "passage":
        overrides["strips_top_k"] = max(
            int(base.get("top_k", 4)), int(base.get("ircot_max_paragraphs", 15))
        )
    return overrides


def parse_strategies(text: str | Sequence[str]) -> list[str]:
    """Parse a comma-separated list (or a list) of strategy names, keeping their order.

    Raises:
        UserError: A name is unknown, or the oracle is asked for without any of A/B/C.
    """
    items = text.split(",") if isinstance(text, str) else list(text)
    names = list(dict.fromkeys(n.strip() for n in items if n.strip()))
    unknown = [n for n in names if n not in DESCRIPTIONS]
    if unknown or not names:
        raise UserError(
            f"unknown strategies {unknown or text!r}; choose from {', '.join(DESCRIPTIONS)}"
        )
    if ORACLE in names and not set(names) & set(ORACLE_LADDER):
        raise UserError(f"{ORACLE} needs at least one of {', '.join(ORACLE_LADDER)}")
    return names
