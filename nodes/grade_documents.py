"""Node `grade_documents`: score new local passages with the retrieval evaluator; decide CRAG.

A passage's grade is the best of its whole-passage score and the scores of its sentence windows
(refinement's sentence strips, instructions removed): the evaluator reads at most 160 tokens and
underrates a long passage whose answer sits in the middle. When option lists are cut by entry or
kept whole (`option_lists`), a list's windows are its entries, so a list is graded by its best
entry. Web passages are not graded here (by origin): refinement scores them strip by strip.
"""

from collections.abc import Sequence
from dataclasses import replace
from typing import NotRequired, TypedDict

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import CragAction, CragActionEvent, GradesEvent, ScoredRef, emit, source_ref
from graphs.state import Passage, State, score_key
from models.text import content_tokens, split_strips, stems
from nodes._common import score_texts
from nodes._guard import without_instructions
from nodes.refine_strips import passage_strips

__all__ = [
    "CragUpdate",
    "GradeUpdate",
    "best_per_passage",
    "crag_action",
    "decide_crag",
    "grade_passages",
    "grading_batch",
]


def crag_action(scores: Sequence[float], *, upper: float, lower: float) -> CragAction:
    """Return CRAG's action for one retrieval.

    Correct if any passage scores at least `upper`; Incorrect if every passage scores below
    `lower` (so also when nothing was retrieved); Ambiguous otherwise.
    """
    if any(score >= upper for score in scores):
        return "Correct"
    if all(score < lower for score in scores):
        return "Incorrect"
    return "Ambiguous"


def grading_batch(
    texts: Sequence[str], context: Context, *, question: str
) -> tuple[list[str], list[int]]:
    """Return what grading scores for these passages, and the passage each text belongs to.

    The passages come first, whole; with `grade_windows`, each one's windows follow: the strips
    refinement cuts in `sentences` mode, instructions removed (an injected order cannot lift a
    grade), unless the only window is the passage itself. A window must share a word (stem)
    with the question: read alone, an answer-shaped sentence about something else ("... a
    novel released in October 1999" for "When did the song X come out?") can score high.
    """
    batch, owners = list(texts), list(range(len(texts)))
    asked = stems(content_tokens(question))
    by_entry = replace(context, strip_mode="sentences", option_lists="entries")
    for index, text in enumerate(texts if context.grade_windows else []):
        windows = (
            passage_strips(text, by_entry)
            if context.option_lists != "sentences"
            else split_strips(
                without_instructions(text)[0],
                mode="sentences",
                sentences=context.strip_sentences,
                words=context.strip_words,
            )
        )
        if windows == [" ".join(text.split())]:
            continue
        kept = [w for w in windows if asked & stems(content_tokens(w))]
        batch += kept
        owners += [index] * len(kept)
    return batch, owners


def best_per_passage(scores: Sequence[float], owners: Sequence[int]) -> list[float]:
    """Return each passage's grade: the best score among its texts (see `grading_batch`)."""
    best: dict[int, float] = {}
    for owner, score in zip(owners, scores, strict=True):
        best[owner] = max(score, best.get(owner, score))
    return [best[index] for index in sorted(best)]


class GradeUpdate(TypedDict):
    """What `grade_passages` writes.

    The newly graded passages (none when none were new), and every score the evaluator gave
    (refinement reuses the windows').
    """

    passages: NotRequired[list[Passage]]
    window_scores: NotRequired[dict[str, float]]


class CragUpdate(GradeUpdate):
    """What `decide_crag` writes."""

    crag_scores: list[float]
    crag_action: CragAction


def _grade(
    state: State, runtime: Runtime[Context], deps: Deps, *, action: bool = False
) -> tuple[GradeUpdate, list[float] | None]:
    """Score the ungraded local passages; return the update and the grades (None: failed).

    With `action` and an action evaluator (`Context.action_evaluator`), the grades returned
    are that evaluator's, of the same texts; the passages keep the evaluator's.
    """
    batch = [
        p for p in state.get("passages") or [] if p["origin"] == "local" and p["score"] is None
    ]
    if not batch:
        return GradeUpdate(), []
    question = state["standalone_question"]
    texts, owners = grading_batch([p["text"] for p in batch], runtime.context, question=question)
    scores = score_texts(
        runtime, deps, node="grade_documents", question=question, texts=texts, used="Ambiguous"
    )
    grades = None if scores is None else best_per_passage(scores, owners)
    graded: list[Passage] = [
        {**p, "score": round(s, 4)}
        for p, s in zip(batch, grades or [0.0] * len(batch), strict=True)
    ]
    emit(runtime, _grades_event(graded))
    update = GradeUpdate(passages=graded)
    if scores is None:
        return update, None
    update["window_scores"] = {
        score_key(question, t): v for t, v in zip(texts, scores, strict=True)
    }
    if action and deps.grades_action_apart(runtime.context):
        scores = score_texts(
            runtime,
            deps,
            node="grade_documents",
            question=question,
            texts=texts,
            used="Ambiguous",
            action=True,
        )
        grades = None if scores is None else best_per_passage(scores, owners)
    return update, grades


def _grades_event(graded: Sequence[Passage]) -> GradesEvent:
    refs = [ScoredRef(**source_ref(p, p["hash"]), score=p["score"] or 0.0) for p in graded]
    return GradesEvent(type="grades", node="grade_documents", scores=refs)


def grade_passages(state: State, runtime: Runtime[Context], deps: Deps) -> GradeUpdate:
    """Score the local passages not graded yet (IRCoT's grading: no CRAG action)."""
    return _grade(state, runtime, deps)[0]


def decide_crag(state: State, runtime: Runtime[Context], deps: Deps) -> CragUpdate:
    """Grade the new passages, then store CRAG's action for this retrieval.

    With an action evaluator (`Context.action_evaluator`), it alone grades for the action;
    the passages keep the evaluator's grades, which refinement and abstention read.
    """
    update, scores = _grade(state, runtime, deps, action=True)
    # No grades (a judge failed, as its fallback event says): the action is Ambiguous, and
    # the thresholds shown are `evaluator`'s, since an action artifact may be what is missing.
    context = runtime.context
    thresholds = context.crag_thresholds() if scores is None else deps.crag_thresholds(context)
    action: CragAction = (
        "Ambiguous"
        if scores is None
        else crag_action(scores, upper=thresholds.upper, lower=thresholds.lower)
    )
    scores = scores or []
    shown = CragActionEvent(
        type="crag_action",
        node="grade_documents",
        action=action,
        graded=len(scores),
        above_upper=sum(s >= thresholds.upper for s in scores),
        best=round(max(scores), 4) if scores else None,
        upper=thresholds.upper,
        lower=thresholds.lower,
    )
    emit(runtime, shown)
    return CragUpdate(**update, crag_scores=scores, crag_action=action)
