"""Adaptive-RAG with an oracle classifier, read from the results of the other strategies.

Per question, the oracle takes the simplest of no-retrieval, single-step and IRCoT (routes A,
B, C) that answered correctly (Acc: a gold answer occurs in the prediction). When none did,
it takes the one with the best F1, ties going to the simpler, so its scores are an upper
bound of what a perfect router could reach with these strategies. Nothing is run again.
"""

from collections.abc import Iterable, Sequence
from dataclasses import replace

from bench.records import Record
from bench.strategies import ORACLE, ORACLE_LADDER

__all__ = ["oracle_choice", "oracle_records"]


def oracle_choice(results: Sequence[Record]) -> Record | None:
    """Return the record the oracle picks among one question's results (None if none apply)."""
    by_strategy = {r.strategy: r for r in results if r.error is None}
    ladder = [by_strategy[name] for name in ORACLE_LADDER if name in by_strategy]
    if not ladder:
        return None
    correct = [r for r in ladder if r.acc > 0]
    if correct:
        return correct[0]
    return max(ladder, key=lambda r: (r.f1, -ladder.index(r)))


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
