"""Node `reflect`: Self-RAG critique of the candidates, ranking, and a bounded retry.

score = p(answer) + w_rel * IsRel + w_sup * IsSup + w_use * IsUse, where p(answer) is the
exponentiated mean token log-probability (0 when the model does not report it), IsRel the mean
relevance of the evidence, IsSup = P(full) + 0.5 * P(partial), IsUse = (usefulness - 1) / 4.
"""

import math
from collections.abc import Sequence
from typing import Literal, NotRequired, TypedDict

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import CandidateView, CritiqueEvent, RetryEvent, cap_reached, emit
from graphs.state import Candidate, State, Strip
from models.judges import EvidenceSupportChecker, SupportChecker, SupportJudgement, SupportLevel
from nodes._common import ask_judge

__all__ = ["RETRY_STEPS", "ReflectUpdate", "rank_candidates", "reflect"]

RETRY_STEPS = 12
"""Super-steps a retry may need; with fewer left, the run finishes instead."""

_NEUTRAL_SUPPORT: dict[SupportLevel, float] = {"full": 0.0, "partial": 1.0, "none": 0.0}


def rank_candidates(candidates: Sequence[Candidate], context: Context) -> list[Candidate]:
    """Score candidates with the Context's weights and return them best first."""
    scored: list[Candidate] = []
    for c in candidates:
        p = math.exp(c["logprob"]) if context.use_logprobs and c["logprob"] is not None else 0.0
        weighted = context.w_rel * c["is_rel"] + context.w_sup * c["is_sup"]
        item = Candidate(**c)
        item["score"] = round(p + weighted + context.w_use * c["is_use"], 4)
        scored.append(item)
    if context.support_filter:
        scored = [c for c in scored if c["support"] != "none"] or scored
    return sorted(scored, key=lambda c: -c["score"])


def _valid_support(found: object) -> bool:
    return isinstance(found, dict) and abs(sum(found.values()) - 1) < 1e-3


def _valid_judgement(found: SupportJudgement, count: int) -> bool:
    """Accept valid levels with one level per item, or none (a checker judging only the whole)."""
    return _valid_support(found.levels) and len(found.each) in (0, count)


def _judge_support(
    checker: SupportChecker, question: str, answer: str, evidence: list[str]
) -> SupportJudgement:
    """Ask for the whole evidence's support and, when the checker offers it, each item's."""
    if isinstance(checker, EvidenceSupportChecker):
        return checker.support_each(question, answer, evidence)
    return SupportJudgement(checker.support(question, answer, evidence), [])


def _support(
    candidate: Candidate,
    evidence: list[Strip],
    question: str,
    runtime: Runtime[Context],
    deps: Deps,
) -> SupportJudgement:
    texts = [s["text"] for s in evidence]
    found = ask_judge(
        runtime,
        node="reflect",
        judge="support",
        get=lambda: deps.support_for(runtime.context),
        call=lambda checker: _judge_support(checker, question, candidate["text"], texts),
        check=lambda found: _valid_judgement(found, len(texts)),
        used="partial",
    )
    return found or SupportJudgement(_NEUTRAL_SUPPORT, [])


def _usefulness(
    candidate: Candidate, question: str, runtime: Runtime[Context], deps: Deps
) -> float:
    found = ask_judge(
        runtime,
        node="reflect",
        judge="usefulness",
        get=lambda: deps.usefulness_for(runtime.context),
        call=lambda judge: float(judge.usefulness(question, candidate["text"])),
        check=lambda value: 1 <= value <= 5,
        used="3",
    )
    return 3.0 if found is None else found


def _critique(
    candidate: Candidate,
    strips: dict[str, Strip],
    question: str,
    runtime: Runtime[Context],
    deps: Deps,
) -> Candidate:
    evidence = [strips[h] for h in candidate["strip_hashes"] if h in strips]
    judged = SupportJudgement(_NEUTRAL_SUPPORT, [])
    if evidence:  # without evidence (route A) support is not judged
        judged = _support(candidate, evidence, question, runtime, deps)
    support = judged.levels
    use = _usefulness(candidate, question, runtime, deps)
    done = Candidate(**candidate)
    done["is_rel"] = (
        round(sum((s["score"] + 1) / 2 for s in evidence) / len(evidence), 4) if evidence else 0.0
    )
    done["is_sup"] = round(support["full"] + 0.5 * support["partial"], 4)
    done["support"] = max(support, key=lambda k: support[k]) if evidence else "partial"
    done["is_use"] = round((use - 1) / 4, 4)
    if judged.each:  # what `finalize` cites; absent when the checker judged no item alone
        done["strip_support"] = {s["hash"]: lv for s, lv in zip(evidence, judged.each, strict=True)}
    return done


def _view(candidate: Candidate) -> CandidateView:
    return CandidateView(
        text=candidate["text"],
        score=candidate["score"],
        is_rel=candidate["is_rel"],
        is_sup=candidate["is_sup"],
        support=candidate["support"],
        is_use=candidate["is_use"],
        logprob=candidate["logprob"],
    )


class ReflectUpdate(TypedDict):
    """What `reflect` writes: the ranked candidates and its decision."""

    candidates: list[Candidate]
    retry: Literal["regenerate", "rewrite"] | None
    retries: NotRequired[int]
    stop_reason: NotRequired[str | None]


def reflect(state: State, runtime: Runtime[Context], deps: Deps) -> ReflectUpdate:
    """Critique and rank the candidates; decide whether to retry an unsupported best one."""
    context, question = runtime.context, state["standalone_question"]
    strips = {s["hash"]: s for s in state.get("strips") or []}
    critiqued = [
        _critique(c, strips, question, runtime, deps) for c in state.get("candidates") or []
    ]
    ranked = rank_candidates(critiqued, context) if context.reflect else critiqued
    weights = [context.w_rel, context.w_sup, context.w_use]
    views = [_view(c) for c in ranked]
    emit(runtime, CritiqueEvent(type="critique", node="reflect", weights=weights, candidates=views))
    return _decide(state, runtime, ranked)


def _decide(state: State, runtime: Runtime[Context], ranked: list[Candidate]) -> ReflectUpdate:
    """Retry an unsupported best candidate while the cap and the step budget allow it."""
    context = runtime.context
    update = ReflectUpdate(candidates=ranked, retry=None)
    if not (context.reflect and ranked and ranked[0]["support"] == "none"):
        return update
    retries = state.get("retries", 0)
    room = state.get("remaining_steps", RETRY_STEPS + 1) > RETRY_STEPS
    if retries < context.max_retries and room:
        update["retries"], update["retry"] = retries + 1, context.retry_action
        why = "the best answer is not supported by the evidence"
        shown = RetryEvent(
            type="retry", node="reflect", attempt=retries + 1, action=context.retry_action, why=why
        )
        emit(runtime, shown)
        return update
    reason = f"the answer is not supported by the evidence after {retries} retries (cap reached)"
    emit(runtime, cap_reached("reflect", "max_retries", context.max_retries, reason))
    update["stop_reason"] = state.get("stop_reason") or reason
    return update
