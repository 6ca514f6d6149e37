from typing import get_args

import pytest

from app.render import describe, format_answer, render
from graphs.event_examples import EXAMPLE_EVENTS
from graphs.events import EVENT_TYPES, AnswerEvent, Citation, Event, Source, emit, source_label
from tests.fakes import make_runtime


def test_every_type_of_the_union_has_an_example():
    declared = {t.__annotations__["type"].__args__[0] for t in get_args(Event)}
    assert declared == set(EVENT_TYPES) == set(EXAMPLE_EVENTS)
    assert all(EXAMPLE_EVENTS[kind]["type"] == kind for kind in EVENT_TYPES)


@pytest.mark.parametrize("kind", [k for k in EVENT_TYPES if k != "answer"])
def test_every_event_type_has_a_trace_line(kind):
    line = describe(EXAMPLE_EVENTS[kind])
    assert line and line.strip() == line and "{" not in line and "None" not in line
    assert "notes/harbour.md" not in line  # paths are shown by their file name


def test_the_answer_is_rendered_apart():
    assert describe(EXAMPLE_EVENTS["answer"]) is None
    assert render(dict(EXAMPLE_EVENTS["answer"])) == format_answer(EXAMPLE_EVENTS["answer"])


def test_trace_lines_carry_the_decision():
    assert describe(EXAMPLE_EVENTS["grades"]) == "graded: +0.91"
    route = {**EXAMPLE_EVENTS["route"], "reason": "a single fact"}
    assert describe(route) == "route B (p=0.80): a single fact"
    crag = describe(EXAMPLE_EVENTS["crag_action"])
    assert crag is not None and crag.startswith("CRAG Correct: best +0.91")
    same = {**EXAMPLE_EVENTS["question"], "standalone": "When was it completed?"}
    assert describe(same) is None  # a first turn needs no line
    template = {**EXAMPLE_EVENTS["question"], "condensed": "template"}
    assert "did not hold up" in (describe(template) or "")
    resolved = {**EXAMPLE_EVENTS["question"], "condensed": "resolved"}
    assert "pronoun resolved by rule" in (describe(resolved) or "")
    noted = {**EXAMPLE_EVENTS["rewrite"], "note": "kept the question's own keywords"}
    assert describe(noted) == (
        "searched the web for: Glassmere Lighthouse, completed (kept the question's own keywords)"
    )
    refused = {
        **EXAMPLE_EVENTS["fallback"],
        "judge": "rewriter",
        "problem": "invalid output: 'How You Remind Me, came out'",
        "used": "the question's own keywords",
    }
    assert describe(refused) == (
        "rewriter did not give a usable answer (invalid output: 'How You Remind Me, came out');"
        " used the question's own keywords"
    )


def _citation(marker: int, source: str, position: int | None, origin: str = "local") -> Citation:
    url = source if origin == "web" else None
    where = Source(
        title=f"Title {marker}", source=source, position=position, url=url, origin=origin
    )  # type: ignore[typeddict-item]
    return Citation(
        **where,
        marker=marker,
        label=source_label(where),
        passage_hash=f"p{marker}",
        strip_hash=f"s{marker}",
        text="text",
    )


def test_format_answer_lists_sources_once_with_file_name_tails():
    answer = AnswerEvent(
        **{
            **EXAMPLE_EVENTS["answer"],
            "answer": "The lighthouse was completed in 1887.",
            "citations": [
                _citation(1, "/home/ana/docs/notes/harbour.md", 2),
                _citation(2, "/home/ana/docs/notes/harbour.md", 5),
                _citation(3, "https://example.org/glassmere", None, origin="web"),
            ],
            "notes": ["Degraded: web search failed: TimeoutError."],
        }
    )
    text = format_answer(answer)
    lines = text.splitlines()
    assert lines[0] == "The lighthouse was completed in 1887. [1][2][3]"
    assert text.count("Sources:") == 1
    assert "[1] Title 1 (harbour.md#2)" in lines and "[2] Title 2 (harbour.md#5)" in lines
    assert "[3] Title 3 (https://example.org/glassmere)" in lines
    assert "/home/ana" not in text and "notes/" not in text
    assert lines[-1] == "Degraded: web search failed: TimeoutError."
    assert "revised" not in text
    revised = format_answer(AnswerEvent(**{**answer, "revised": True, "citations": []}))
    assert "revised" not in revised and "Sources:" not in revised  # the answer, shown once


def test_emit_streams_and_returns_the_payload():
    sink: list[object] = []
    payload = EXAMPLE_EVENTS["retry"]
    assert emit(make_runtime(events=sink), payload) is payload
    assert sink == [payload]
    assert emit(None, payload) is payload  # a node called outside a graph


def test_source_label_is_the_url_or_the_file_and_position():
    local = Source(title="t", source="notes/a.md", position=3, url=None, origin="local")
    assert source_label(local) == "notes/a.md#3"
    assert source_label({**local, "position": None}) == "notes/a.md"
    web = Source(title="t", source="page", position=None, url="https://x.org/p", origin="web")
    assert source_label(web) == "https://x.org/p"
    assert source_label({**web, "url": None}) == "page"
