"""One way to make benchmark records in tests: each test spells out only what it is about."""

from typing import Any

from bench.harness.records import Record


def record(
    strategy: str = "single",
    qid: object = "1",
    *,
    dataset: str = "d",
    score: float | None = None,
    **fields: Any,
) -> Record:
    """Return a scored record; `score` sets EM, F1 and Acc at once, `fields` anything else."""
    scores = {} if score is None else {"em": score, "f1": score, "acc": score}
    base: dict[str, Any] = {
        "dataset": dataset,
        "id": str(qid),
        "strategy": strategy,
        "question": "q",
        "answers": ["a"],
        "prediction": "p",
    }
    return Record(**(base | scores | fields))
