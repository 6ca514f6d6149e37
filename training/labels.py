"""Adaptive-RAG's route labels (section 3.2): silver where a strategy succeeds, else bias.

A question's silver label comes from the one oracle rule (`bench.harness.oracle.oracle_route`): the
simplest of A (no retrieval) < B (single-step) < C (IRCoT) that answered correctly, ties going
to the simpler. Questions no strategy answers, and questions no strategy was run on, take the
dataset-bias label: B for single-hop datasets, C for multi-hop ones. A closed-book answer to a
question that writes its answer out ("Which came first, X or Y?") can be right by luck; such
A outcomes can be set aside (`drop_guessed_a`) so they do not teach route A.

Label files are JSONL, one row per question with `correct: {route: bool}` and the `reader`
(chat model spec) that answered; rows written before readers were recorded have none. A file
that mixes readers is refused unless one reader is chosen, so labels from different readers
never train one classifier silently.
"""

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from bench.harness.metrics import score_prediction
from bench.harness.oracle import ROUTES, label_rows, oracle_route
from models.errors import UserError
from models.judges import Route

__all__ = [
    "ROUTES",
    "LabelSource",
    "answer_in_question",
    "bias_label",
    "question_label",
    "read_label_file",
    "readers_in",
    "route_labels",
]

LabelSource = Literal["silver", "bias"]


def bias_label(hop: str, *, multi_hop: Route = "C") -> Route:
    """Return the dataset-bias label: B for single-hop questions, `multi_hop` (C) for others.

    The paper's multi-hop bias is C (IRCoT); a reader for which IRCoT is no more accurate
    than single-step on multi-hop questions is better served by B, at half the time.
    """
    if hop not in ("single", "multi"):
        raise ValueError(f"hop must be 'single' or 'multi', not {hop!r}")
    return "B" if hop == "single" else multi_hop


def answer_in_question(question: str, answers: Sequence[str]) -> bool:
    """Return whether a gold answer is written in the question, as in a choice between options.

    That is, the question itself, read as a prediction, scores Acc (`bench.harness.metrics`: whole
    words after SQuAD normalisation): "Who was born first, Ann Lee or Bo Chan?" holds
    "Bo Chan"; "Who wrote Annie?" does not hold "Ann".
    """
    return score_prediction(question, answers).acc > 0


def question_label(
    correct: Mapping[Route, bool], hop: str, *, multi_hop_bias: Route = "C"
) -> tuple[Route, LabelSource]:
    """Return a question's label and where it comes from, given each route's correctness."""
    source: LabelSource = "silver" if any(correct.get(r, False) for r in ROUTES) else "bias"
    otherwise = bias_label(hop, multi_hop=multi_hop_bias)
    return oracle_route(correct, otherwise=otherwise), source


def readers_in(rows: Iterable[Mapping[str, Any]]) -> set[str | None]:
    """Return the reader specs that made `rows` (None for rows that predate the field)."""
    return {row.get("reader") for row in rows}


def read_label_file(path: Path, *, reader: str | None = None) -> dict[str, dict[str, Any]]:
    """Read a silver-label JSONL file keyed by question id, optionally one reader's rows only.

    A benchmark `records.jsonl` serves too: its `no-retrieval`, `single` and `ircot` records
    become label rows (`bench.harness.oracle.label_rows`).

    Raises:
        UserError: The file mixes readers and none was chosen.
    """
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    if any("strategy" in row for row in rows):
        rows = label_rows(rows)
    if reader is not None:
        rows = [row for row in rows if row.get("reader") == reader]
    elif len(readers := readers_in(rows)) > 1:
        names = ", ".join(sorted(str(r) for r in readers))
        raise UserError(f"{path} mixes labels from several readers ({names}); choose one")
    return {row["id"]: row for row in rows}


def route_labels(
    records: Iterable[Mapping[str, Any]],
    silver: Mapping[str, Mapping[str, Any]],
    *,
    multi_hop_bias: Route = "C",
    drop_guessed_a: bool = False,
) -> list[tuple[Route, LabelSource]]:
    """Label each record: silver from the label row's `correct` map if any is, else bias.

    Args:
        records: Questions in the shared schema (`id`, `hop`; `question` and `answers` when
            `drop_guessed_a`).
        silver: Label rows keyed by question id; each has `correct: {route: bool}`.
        multi_hop_bias: The bias label of multi-hop questions (`bias_label`).
        drop_guessed_a: Count a right closed-book answer as wrong when the question writes
            the answer out (`answer_in_question`): a guess between named options.
    """
    labels: list[tuple[Route, LabelSource]] = []
    for record in records:
        row = silver.get(record["id"])
        correct = dict(row["correct"]) if row else {}
        if (
            drop_guessed_a
            and correct.get("A")
            and answer_in_question(record["question"], record["answers"])
        ):
            correct["A"] = False
        labels.append(question_label(correct, record["hop"], multi_hop_bias=multi_hop_bias))
    return labels
