"""Grade a finished run's first retrievals again, offline, with today's evaluator and grading.

A record's `best_score` is the evaluator's best grade on the graph's first retrieval: what
CRAG's action reads. When the grading changes (sentence windows, `grade_windows`) or the
evaluator is retrained, the retrieval is rebuilt (`bench.harness.replay`) and graded again, so the
thresholds can be chosen for the new grading from the same forced-action records: their Acc
and tokens do not depend on the score. No LLM runs.
"""

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from bench.harness.records import Record
from bench.harness.replay import Replay
from bench.harness.strategies import STRATEGIES
from graphs.context import Context
from graphs.events import CragAction
from models.errors import UserError
from models.judges import RetrievalEvaluator
from nodes.grade_documents import best_per_passage, crag_action, grading_batch

__all__ = ["Rescored", "grading_context", "rescore", "summary"]

QuestionKey = tuple[str, str, float]
"""(dataset, question id, share of gold dropped): one retrieval, whatever the strategy."""

_QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


@dataclass(frozen=True)
class Rescored:
    """One question's best score: as recorded, graded whole today, and with windows today."""

    recorded: float | None
    whole: float | None
    windows: float | None


def grading_context(replay: Replay, strategy: str) -> Context:
    """Return the strategy's recorded Context with windowed grading on."""
    known = {f.name for f in fields(Context)}
    settings = {k: v for k, v in replay.context(strategy).items() if k in known}
    return Context(**{**settings, "grade_windows": True})


def _grade(
    evaluator: RetrievalEvaluator, question: str, texts: Sequence[str], context: Context
) -> tuple[float | None, float | None]:
    """Return the best whole-passage score and the best windowed grade (None: nothing found)."""
    if not texts:
        return None, None
    batch, owners = grading_batch(texts, context, question=question)
    scores = [float(s) for s in evaluator.score(question, batch)]
    return round(max(scores[: len(texts)]), 4), round(max(best_per_passage(scores, owners)), 4)


def rescore(
    records: Sequence[Record], replay: Replay, evaluator: RetrievalEvaluator
) -> tuple[list[Record], dict[QuestionKey, Rescored]]:
    """Replace the `best_score` of every route-B record with today's windowed grade.

    Returns:
        The records (others unchanged), and per question its scores, read from the
        `crag-correct` record when there is one (what the sweep reads).
    """
    if not replay.files:
        raise UserError("no run.json beside the records names the run's QA files")
    graded: dict[tuple[int, str, tuple[str, ...]], tuple[float | None, float | None]] = {}
    questions: dict[QuestionKey, Rescored] = {}
    out = []
    for record in sorted(records, key=lambda r: r.strategy != "crag-correct"):
        if record.error is not None or STRATEGIES.get(record.strategy, {}).get("route") != "B":
            out.append(record)
            continue
        texts = tuple(d.page_content for d in replay.documents(record))
        context = grading_context(replay, record.strategy)
        key = (context.strip_sentences, record.question, texts)  # all that grading reads
        if key not in graded:
            graded[key] = _grade(evaluator, record.question, texts, context)
        whole, windows = graded[key]
        question = (record.dataset, record.id, round(record.drop_gold, 4))
        questions.setdefault(question, Rescored(record.best_score, whole, windows))
        out.append(replace(record, best_score=windows))
    return out, questions


_ACTIONS: tuple[CragAction, ...] = ("Correct", "Ambiguous", "Incorrect")
_SAME = 1e-3
"""Scores closer than this count as equal (batch padding moves the last digits)."""


def _quantiles(values: Sequence[float]) -> list[str]:
    ranked = sorted(values)
    return [f"{ranked[round(q * (len(ranked) - 1))]:+.3f}" if ranked else "–" for q in _QUANTILES]


def _mix(values: Sequence[float | None], upper: float, lower: float) -> list[str]:
    actions = [crag_action([] if v is None else [v], upper=upper, lower=lower) for v in values]
    return [f"{actions.count(a) / len(actions):.0%}" if actions else "–" for a in _ACTIONS]


def _differ(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is not b
    return abs(a - b) >= _SAME


def summary(questions: dict[QuestionKey, Rescored], *, upper: float, lower: float) -> str:
    """Return how many best scores changed, and each grading's quantiles and action mix."""
    found = list(questions.values())
    recorded = [q for q in found if q.recorded is not None]
    lines = [
        f"{len(found)} questions rescored; windows raised the best score of "
        f"{sum(_differ(q.whole, q.windows) for q in found)}.",
        f"Of the {len(recorded)} with a recorded best score, "
        f"{sum(_differ(q.recorded, q.windows) for q in recorded)} changed; graded whole today, "
        f"{sum(not _differ(q.recorded, q.whole) for q in recorded)} score as recorded "
        "(the run's retrieval and evaluator, rebuilt).\n",
        f"| best score | n | {' | '.join(f'{q:.0%}' for q in _QUANTILES)} "
        "| Correct | Ambiguous | Incorrect |",
        "|---|---:|" + "---:|" * (len(_QUANTILES) + 3),
    ]
    for name, values in (
        ("recorded", [q.recorded for q in recorded]),
        ("whole passages (today)", [q.whole for q in found]),
        ("with windows (today)", [q.windows for q in found]),
    ):
        cells = [*_quantiles([v for v in values if v is not None]), *_mix(values, upper, lower)]
        lines.append(f"| {name} | {len(values)} | " + " | ".join(cells) + " |")
    return "\n".join([*lines, f"\nactions at upper {upper:+.2f}, lower {lower:+.2f}"])
