"""The page's pure modules (app/static/*.js) and the CLI's `describe` against the event contract.

Every event type of `graphs.events.EXAMPLE_EVENTS` goes through both renderers: the page's
`describeEvent` (run in node, the events serialized from Python) and `app.cmd_ask.describe`.
"""

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app.cmd_ask import describe
from graphs.event_examples import EXAMPLE_EVENTS
from graphs.events import EVENT_TYPES

STATIC = Path(__file__).resolve().parents[3] / "app" / "static"
NODE = shutil.which("node")
JUNK = ("undefined", "NaN", "[object Object]", "null")

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run_node(tmp_path: Path, script: str, data: Any) -> Any:
    """Run an ES module with `data` bound to `DATA`; return what it prints as JSON."""
    imports = "\n".join(
        f'import * as {name} from "{(STATIC / f"{name}.js").as_uri()}";'
        for name in ("events", "markdown", "history", "upload")
    )
    module = tmp_path / "run.mjs"
    module.write_text(
        f"{imports}\nconst DATA = {json.dumps(data)};\n"
        f"const result = (() => {{ {script} }})();\nconsole.log(JSON.stringify(result));\n"
    )
    assert NODE is not None
    done = subprocess.run([NODE, str(module)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _texts(described: dict[str, Any]) -> list[str]:
    return [described["title"], described["facts"], *(d["text"] for d in described["details"])]


@needs_node
def test_page_describes_every_example_event(tmp_path: Path) -> None:
    events = list(EXAMPLE_EVENTS.values())
    described = run_node(
        tmp_path,
        "return {known: events.KNOWN_TYPES, lines: DATA.map(events.describeEvent)};",
        events,
    )
    assert sorted(described["known"]) == sorted(EVENT_TYPES)
    for event, lines in zip(events, described["lines"], strict=True):
        assert lines["title"] and lines["title"] != event["type"], event["type"]
        for text in _texts(lines):
            assert not any(junk in text for junk in JUNK), (event["type"], text)


@needs_node
def test_page_shows_decisive_facts_inline(tmp_path: Path) -> None:
    keys = ("route", "crag_action", "strips", "ircot_step", "critique")
    lines = run_node(
        tmp_path,
        "return DATA.map((e) => events.describeEvent(e));",
        [EXAMPLE_EVENTS[key] for key in keys],
    )
    route, crag, strips, ircot, critique = (f"{x['title']} {x['facts']}" for x in lines)
    assert route == "Route B trained classifier: B (p=0.80)"
    assert crag == "CRAG: Correct best 0.91 vs threshold 0.50"
    assert strips == "Refined kept 1 of 2 strips"
    assert ircot == "Reasoning step 1 The lighthouse was completed in 1887."
    assert "support full" in critique
    assert [d["kind"] for d in lines[2]["details"]] == ["kept", "dropped"]


@needs_node
def test_page_shows_file_tails_never_absolute_paths(tmp_path: Path) -> None:
    events: list[dict[str, Any]] = copy.deepcopy([dict(e) for e in EXAMPLE_EVENTS.values()])
    for event in events:
        for ref in [*event.get("passages", []), *event.get("scores", [])]:
            ref["source"], ref["label"] = "/home/me/docs/harrow.txt", "/home/me/docs/harrow.txt#0"
        for strip in event.get("strips", []):
            strip["label"] = "/home/me/docs/harrow.txt#0"
    lines = run_node(tmp_path, "return DATA.map(events.describeEvent);", events)
    texts = [text for described in lines for text in _texts(described)]
    assert any("harrow.txt#0" in text for text in texts)
    assert not any("/home/" in text for text in texts)


@needs_node
def test_source_card_passage_highlights_the_cited_strip(tmp_path: Path) -> None:
    answer = EXAMPLE_EVENTS["answer"]
    passage = run_node(
        tmp_path,
        "return events.passageFor(DATA.citation, DATA.events);",
        {"citation": answer["citations"][0], "events": list(EXAMPLE_EVENTS.values())},  # type: ignore[typeddict-item]
    )
    assert passage == [
        {"text": "The Glassmere Lighthouse was completed in 1887.", "cited": True},
        {"text": "It is white.", "cited": False},
    ]


@needs_node
def test_source_card_finds_the_passage_by_hash_not_by_label_or_text(tmp_path: Path) -> None:
    answer = EXAMPLE_EVENTS["answer"]
    citation = answer["citations"][0]  # type: ignore[typeddict-item]
    strips = copy.deepcopy(EXAMPLE_EVENTS["strips"])
    same_label = {**strips["strips"][1], "hash": "other", "passage_hash": "another passage"}
    inside = {**strips["strips"][1], "hash": "inside", "text": "completed in 1887"}
    strips["strips"] = [*strips["strips"], same_label, inside]  # type: ignore[typeddict-item]
    passage = run_node(
        tmp_path,
        "return events.passageFor(DATA.citation, DATA.events);",
        {"citation": citation, "events": [strips]},
    )
    assert passage == [
        {"text": "The Glassmere Lighthouse was completed in 1887.", "cited": True},
        {"text": "It is white.", "cited": False},
        {"text": "completed in 1887", "cited": False},  # its text is inside, but not the cited
    ]


@needs_node
def test_markdown_keeps_raw_html_as_text_and_places_markers(tmp_path: Path) -> None:
    text = "It is **white**. It was completed in 1887.\n\n- <img src=x onerror=alert(1)>"
    blocks = run_node(
        tmp_path,
        "return markdown.parseBlocks(markdown.placeMarkers(DATA.text, DATA.citations));",
        {"text": text, "citations": [{"marker": 1, "text": "completed in 1887"}]},
    )
    first = blocks[0]["children"]
    assert [node["type"] for node in first] == ["text", "strong", "text", "cite"]
    assert first[-1] == {"type": "cite", "marker": 1}
    assert blocks[1] == {
        "type": "ul",
        "items": [[{"type": "text", "text": "<img src=x onerror=alert(1)>"}]],
    }


@needs_node
def test_markdown_links_only_to_the_cited_passages_urls(tmp_path: Path) -> None:
    text = (
        "[a](javascript:alert(1)) [b](https://example.org/doc) "
        "[your bank](https://evil.example/login) [c](https://example.org/other)"
    )
    nodes = run_node(
        tmp_path,
        "return markdown.parseInline(DATA.text, new Set(DATA.allowed));",
        {"text": text, "allowed": ["https://example.org/doc", "javascript:alert(1)"]},
    )
    links = [(node["href"], node["host"]) for node in nodes if node["type"] == "link"]
    assert links == [("https://example.org/doc", "example.org")]
    shown = "".join(node.get("text", "") for node in nodes)
    assert "[your bank](https://evil.example/login)" in shown  # plain text, not a link
    assert "[a](javascript:" in shown and "[c](https://example.org/other)" in shown
    no_citations = run_node(tmp_path, "return markdown.parseInline(DATA);", text)
    assert {node["type"] for node in no_citations} == {"text"}


@needs_node
def test_citation_markers_never_land_inside_a_url(tmp_path: Path) -> None:
    text = (
        "The guide is at https://docs.example.org/v2.1/install.html and it works. "
        "See also [the notes](https://docs.example.org/notes.v1.html) for more."
    )
    citations = [
        {"marker": 1, "text": "guide docs example org install", "url": None},
        {"marker": 2, "text": "the notes docs example", "url": None},
    ]
    placed = run_node(
        tmp_path,
        "return markdown.placeMarkers(DATA.text, DATA.citations);",
        {"text": text, "citations": citations},
    )
    for url in (
        "https://docs.example.org/v2.1/install.html",
        "https://docs.example.org/notes.v1.html",
    ):
        assert url in placed  # whole, no marker inside
    assert placed.count("\ue000") == 2


def _state(messages: list[dict[str, Any]], events: list[Any], *, done: bool = True) -> Any:
    return {"values": {"messages": messages, "events": events}, "next": [] if done else ["x"]}


@needs_node
def test_every_turn_comes_back_from_history(tmp_path: Path) -> None:
    answer = dict(EXAMPLE_EVENTS["answer"])
    first = [{"type": "human", "content": "Q1"}, {"type": "ai", "content": "A1"}]
    second = [*first, {"type": "human", "content": "Q2"}, {"type": "ai", "content": "A2"}]
    history = [
        _state(second, [EXAMPLE_EVENTS["route"], answer]),
        _state(second[:3], [], done=False),
        _state(first, [EXAMPLE_EVENTS["question"]]),
    ]
    turns = run_node(
        tmp_path, "return history.turnsFromStates(DATA[0], DATA);", [history[0], *history]
    )
    assert [t["question"] for t in turns] == ["Q1", "Q2"]
    assert [e["type"] for e in turns[0]["events"]] == ["question"]
    assert turns[0]["final"]["answer"] == "A1"
    assert [e["type"] for e in turns[1]["events"]] == ["route", "answer"]
    assert turns[1]["final"]["citations"] == answer["citations"]


@needs_node
def test_upload_counts_each_files_own_outcome(tmp_path: Path) -> None:
    lines = [
        {"phase": "saved", "file": "a.txt"},
        {"phase": "indexed", "file": "a.txt", "index": 1, "total": 3},
        {"phase": "skipped", "file": "b.docx", "reason": "unsupported type .docx"},
        {"phase": "unchanged", "file": "c.md"},
        {"phase": "done", "total": 3},
    ]
    summary = run_node(
        tmp_path, "return upload.summarize(DATA.map(upload.outcomeOf).filter(Boolean));", lines
    )
    assert summary == "1 indexed, 1 unchanged, 1 skipped (of 3 files)"


@pytest.mark.parametrize("kind", EVENT_TYPES)
def test_cli_describes_every_example_event(kind: str) -> None:
    line = describe(EXAMPLE_EVENTS[kind])
    if kind == "answer":  # printed apart, as the answer itself
        assert line is None
        return
    assert isinstance(line, str) and line
    assert not any(junk in line for junk in ("None", "[object", "{'"))
