import pytest

from app.cmd_ask import describe
from graphs.events import EVENT_TYPES, event
from tests.fakes import make_runtime

SAMPLES = {
    "question": {"question": "it?", "standalone": "Paris?"},
    "route": {"route": "B", "probabilities": {"B": 0.6}, "reason": "a single fact"},
    "retrieval": {"query": "q", "new": 3},
    "grades": {"scores": [{"score": 0.5}, {"score": -0.25}]},
    "crag_action": {"action": "Correct", "above_upper": 1, "graded": 2, "upper": 0.4},
    "strips": {"kept": 2, "dropped": 3},
    "rewrite": {"purpose": "web", "query": "a, b"},
    "web_results": {"backend": "local", "results": [{}], "degraded": None},
    "ircot_step": {"step": 1, "sentence": "A is B."},
    "critique": {"candidates": [{"score": 2.0, "support": "full"}]},
    "retry": {"attempt": 1, "action": "regenerate", "why": "unsupported"},
    "cap_reached": {"cap": "ircot_max_steps", "limit": 5},
    "fallback": {"judge": "evaluator", "problem": "junk", "used": "Ambiguous"},
}


@pytest.mark.parametrize("kind", [k for k in EVENT_TYPES if k != "answer"])
def test_every_event_type_has_a_trace_line(kind):
    line = describe({"type": kind, "node": "n", **SAMPLES[kind]})
    assert line and "{" not in line


def test_trace_lines_carry_the_decision():
    assert describe({"type": "grades", **SAMPLES["grades"]}) == "graded: +0.50, -0.25"
    assert describe({"type": "route", **SAMPLES["route"]}) == "route B (p=0.60): a single fact"
    same = {"type": "question", "question": "Paris?", "standalone": "Paris?"}
    assert describe(same) is None


def test_event_is_streamed_and_returned():
    sink = []
    payload = event(make_runtime(events=sink), "retry", "reflect", attempt=1)
    assert sink == [payload] == [{"type": "retry", "node": "reflect", "attempt": 1}]
