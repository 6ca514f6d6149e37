"""The oracle rule of Adaptive-RAG, and the benchmark's oracle read from the other strategies.

The rule (`oracle_route`) is the one place that says which of the routes A (no retrieval),
B (single-step) and C (IRCoT) a question "should" take: the simplest that answered correctly,
ties going to the simpler, else a fallback the caller supplies. The classifier's silver labels
(`training.labels`) fall back to the dataset-bias label; the benchmark's oracle falls
back to the strategy with the best F1 (ties to the simpler), so its scores stay an upper bound
of what a perfect router could reach with these strategies. Nothing is run again.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from bench.harness.records import Record
from bench.harness.strategies import ORACLE, ORACLE_LADDER, STRATEGIES
from models.judges import Route

__all__ = ["ROUTES", "label_rows", "oracle_choice", "oracle_records", "oracle_route", "route_of"]

ROUTES: tuple[Route, ...] = tuple(cast(Route, STRATEGIES[name]["route"]) for name in ORACLE_LADDER)
"""Routes A, B and C, simplest first (the routes `ORACLE_LADDER`'s strategies force)."""


def route_of(strategy: str) -> Route:
    """Return the route (A, B or C) that an oracle-ladder strategy forces.

    Raises:
        ValueError: The strategy is not on the oracle ladder.
    """
    if strategy not in ORACLE_LADDER:
        raise ValueError(f"{strategy!r} is not one of {', '.join(ORACLE_LADDER)}")
    return ROUTES[ORACLE_LADDER.index(strategy)]


def oracle_route(correct: Mapping[Route, bool], *, otherwise: Route) -> Route:
    """Return the simplest route that answered correctly, else `otherwise`.

    Args:
        correct: Whether each route's answer was correct; a missing route counts as wrong.
        otherwise: The route to take when none was correct.
    """
    return next((route for route in ROUTES if correct.get(route, False)), otherwise)


def oracle_choice(results: Sequence[Record]) -> Record | None:
    """Return the record the oracle picks among one question's results (None if none apply)."""
    runs = [r for r in results if r.error is None and r.strategy in ORACLE_LADDER]
    by_route = {route_of(r.strategy): r for r in runs}
    ladder = [by_route[route] for route in ROUTES if route in by_route]
    if not ladder:
        return None
    best_f1 = max(ladder, key=lambda r: (r.f1, -ladder.index(r)))
    correct = {route: record.acc > 0 for route, record in by_route.items()}
    return by_route[oracle_route(correct, otherwise=route_of(best_f1.strategy))]


def oracle_records(records: Iterable[Record]) -> list[Record]:
    """Return one `adaptive-oracle` record per (dataset, question, drop share)."""
    groups: dict[tuple[str, str, float], list[Record]] = {}
    for record in records:
        if record.strategy != ORACLE:
            groups.setdefault((record.dataset, record.id, record.drop_gold), []).append(record)
    chosen = []
    for group in groups.values():
        pick = oracle_choice(group)
        if pick is not None:
            chosen.append(replace(pick, strategy=ORACLE, oracle_of=pick.strategy))
    return chosen


def label_rows(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return silver-label rows (`training.labels`) read from benchmark records.

    One row per question: `correct` for each route whose ladder strategy ran without error on
    the full index (no gold dropped), the `seconds` of each whose LLM calls were not replayed
    from the cache, and the `reader` that answered. So a benchmark run of
    `no-retrieval,single,ircot` labels its questions the way `acrag train labels` does.
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        strategy = record.get("strategy")
        if strategy not in ORACLE_LADDER or record.get("drop_gold") or record.get("error"):
            continue
        row = rows.setdefault(
            (record["dataset"], record["id"]),
            {
                "id": record["id"],
                "dataset": record["dataset"],
                "question": record.get("question"),
                "reader": record.get("model") or None,
                "correct": {},
            },
        )
        row["correct"][route_of(strategy)] = float(record.get("acc") or 0.0) > 0
        if not record.get("cache_hits") and record.get("seconds") is not None:
            row.setdefault("seconds", {})[route_of(strategy)] = float(record["seconds"])
    return list(rows.values())
