import math

from graphs.context import Context
from nodes.reflect import RETRY_STEPS, rank_candidates, reflect
from tests.fakes import (
    AnswerInWindowLogits,
    FixedSupport,
    FixedUsefulness,
    JunkJudge,
    make_deps,
    make_runtime,
)


def candidate(text, *, rel, sup, use, logprob=None, support="full"):
    return {
        "text": text,
        "strip_hashes": [],
        "logprob": logprob,
        "is_rel": rel,
        "is_sup": sup,
        "support": support,
        "is_use": use,
        "score": 0.0,
    }


RELEVANT = candidate("relevant", rel=0.9, sup=0.2, use=0.5)
SUPPORTED = candidate("supported", rel=0.2, sup=0.9, use=0.5)


def test_default_weights_follow_self_rag():
    ranked = rank_candidates([RELEVANT], Context(use_logprobs=False))
    assert ranked[0]["score"] == round(1.0 * 0.9 + 1.0 * 0.2 + 0.5 * 0.5, 4)


def test_changing_weights_changes_the_ranking():
    by_rel = rank_candidates([RELEVANT, SUPPORTED], Context(w_rel=2.0, w_sup=0.5))
    by_sup = rank_candidates([RELEVANT, SUPPORTED], Context(w_rel=0.5, w_sup=2.0))
    assert [c["text"] for c in by_rel] == ["relevant", "supported"]
    assert [c["text"] for c in by_sup] == ["supported", "relevant"]


def test_logprob_adds_the_answer_probability():
    sure = candidate("sure", rel=0.5, sup=0.5, use=0.5, logprob=math.log(0.9))
    unsure = candidate("unsure", rel=0.5, sup=0.5, use=0.5, logprob=math.log(0.1))
    assert [c["text"] for c in rank_candidates([unsure, sure], Context())] == ["sure", "unsure"]
    off = rank_candidates([unsure, sure], Context(use_logprobs=False))
    assert off[0]["score"] == off[1]["score"]


def test_support_filter_drops_unsupported_candidates():
    unsupported = candidate("bold", rel=1.0, sup=0.0, use=1.0, support="none")
    weak = candidate("weak", rel=0.1, sup=0.5, use=0.1, support="partial")
    assert [c["text"] for c in rank_candidates([unsupported, weak], Context())][0] == "bold"
    assert [
        c["text"] for c in rank_candidates([unsupported, weak], Context(support_filter=True))
    ] == ["weak"]


def strip(hash_, score):
    return {
        "hash": hash_,
        "passage_hash": "p",
        "order": 0,
        "text": f"Paris text {hash_}",
        "title": "",
        "source": "s",
        "position": 0,
        "url": None,
        "origin": "local",
        "score": score,
        "kept": True,
    }


def state_with(answer_texts):
    return {
        "standalone_question": "q",
        "strips": [strip("a", 0.8), strip("b", 0.2)],
        "candidates": [
            {**candidate(t, rel=0, sup=0, use=0), "strip_hashes": ["a", "b"]} for t in answer_texts
        ],
    }


def test_reflect_critiques_and_retries_unsupported():
    deps = make_deps(
        support=FixedSupport(needle="Paris", otherwise="none"), usefulness=FixedUsefulness(5.0)
    )
    events = []
    out = reflect(state_with(["Lyon"]), make_runtime(Context(max_retries=1), events), deps)
    critique = out["candidates"][0]
    assert critique["is_rel"] == round(((0.8 + 1) / 2 + (0.2 + 1) / 2) / 2, 4)
    assert critique["support"] == "none" and critique["is_use"] == 1.0
    assert out["retry"] == "regenerate" and out["retries"] == 1
    assert [e["type"] for e in events] == ["critique", "retry"]
    assert events[1]["action"] == "regenerate"
    rewrite = reflect(
        state_with(["Lyon"]), make_runtime(Context(max_retries=1, retry_action="rewrite")), deps
    )
    assert rewrite["retry"] == "rewrite"
    capped = reflect(
        {**state_with(["Lyon"]), "retries": 1}, make_runtime(Context(max_retries=1)), deps
    )
    assert capped["retry"] is None and "cap reached" in capped["stop_reason"]
    assert "retries" not in capped


def test_no_retry_without_room_for_one():
    deps = make_deps(support=FixedSupport(needle="Paris", otherwise="none"))
    state = {**state_with(["Lyon"]), "remaining_steps": RETRY_STEPS}
    out = reflect(state, make_runtime(Context(max_retries=3)), deps)
    assert out["retry"] is None and "cap reached" in out["stop_reason"]


def test_reflect_accepts_a_supported_answer():
    deps = make_deps(support=FixedSupport(needle="Paris"))
    out = reflect(state_with(["Lyon", "Paris"]), make_runtime(), deps)
    assert out["candidates"][0]["text"] == "Paris"
    assert out["retry"] is None and "stop_reason" not in out


def test_junk_critics_fall_back():
    events = []
    junk = JunkJudge()
    out = reflect(
        state_with(["Paris"]), make_runtime(events=events), make_deps(support=junk, usefulness=junk)
    )
    assert out["candidates"][0]["support"] == "partial" and out["candidates"][0]["is_use"] == 0.5
    assert [e["judge"] for e in events if e["type"] == "fallback"] == ["support", "usefulness"]


def test_the_trained_support_judge_drives_reflection_when_chosen(monkeypatch):
    import models.registry
    import models.support
    from graphs import deps as graph_deps

    manifest = {"thresholds": {"supported": 0.5, "unsupported": -0.3}}
    trained = models.support.TrainedSupportJudge(AnswerInWindowLogits(), manifest)
    monkeypatch.setitem(models.registry.TRAINED_JUDGES, "support", lambda: trained)
    graph_deps._judge.cache_clear()
    try:
        deps = make_deps(support=None)
        assert deps.support_for(Context()) is not trained  # the default is unchanged
        context = Context(support="trained", max_retries=1)
        assert deps.support_for(context) is trained
        invented = reflect(state_with(["Lyon"]), make_runtime(context), deps)
        supported = reflect(state_with(["Paris"]), make_runtime(context), deps)
    finally:
        graph_deps._judge.cache_clear()
    assert invented["candidates"][0]["support"] == "none" and invented["retry"] == "regenerate"
    assert supported["candidates"][0]["support"] == "full" and supported["retry"] is None
    assert supported["candidates"][0]["is_sup"] > 0.9 > 0.1 > invented["candidates"][0]["is_sup"]


def test_reflect_keeps_the_trained_judges_verdict_on_each_strip_from_one_pass():
    import models.support

    logits = AnswerInWindowLogits()
    manifest = {"thresholds": {"supported": 0.5, "unsupported": -0.3}}
    trained = models.support.TrainedSupportJudge(logits, manifest)
    state = {
        **state_with(["Lyon"]),
        "strips": [strip("a", 0.8), {**strip("b", 0.2), "text": "Lyon is the third city."}],
    }
    out = reflect(state, make_runtime(), make_deps(support=trained))
    assert out["candidates"][0]["strip_support"] == {"a": "none", "b": "full"}
    assert out["candidates"][0]["support"] == "full" and logits.calls == 1


def test_a_checker_judging_only_the_whole_evidence_leaves_no_verdict_per_strip():
    class WholeOnly:
        def support(self, question, answer, evidence):
            return {"full": 1.0, "partial": 0.0, "none": 0.0}

    out = reflect(state_with(["Paris"]), make_runtime(), make_deps(support=WholeOnly()))
    assert out["candidates"][0]["support"] == "full"
    assert "strip_support" not in out["candidates"][0]
    junk = reflect(state_with(["Paris"]), make_runtime(), make_deps(support=JunkJudge()))
    assert "strip_support" not in junk["candidates"][0]
