"""One renderer of the event contract for text clients: the CLI, the notebook, the benchmark.

`describe` gives one readable line per event (None for the answer, rendered apart by
`format_answer`). File names are shown by their tail (`harrow.txt#0`), never as absolute paths.
The chat page renders the same contract in `app/static/timeline.js`.
"""

from collections.abc import Callable
from pathlib import PurePath
from textwrap import shorten
from typing import Any, cast

from graphs.events import (
    AnswerEvent,
    CapReachedEvent,
    Citation,
    CragActionEvent,
    CritiqueEvent,
    Event,
    FallbackEvent,
    GradesEvent,
    IrcotStepEvent,
    QuestionEvent,
    RetrievalEvent,
    RetryEvent,
    RewriteEvent,
    RouteEvent,
    StripsEvent,
    WebResultsEvent,
)

__all__ = ["describe", "format_answer", "short_source"]


def short_source(source: str, position: int | None = None) -> str:
    """Return a file's name (a URL stays whole), with `#position` for a chunk."""
    name = source if "://" in source else PurePath(source).name or source
    return name if position is None else f"{name}#{position}"


_CONDENSED_NOTES = {
    "template": " (kept the previous question: the rewrite did not hold up)",
    "resolved": " (pronoun resolved by rule: the rewrite did not hold up)",
}


def _question(e: QuestionEvent) -> str | None:
    if e["standalone"] == e["question"]:
        return None
    read = f" ({e['referent']})" if e.get("referent") else ""
    return f"follow-up read as: {e['standalone']}{read}{_CONDENSED_NOTES.get(e['condensed'], '')}"


def _route(e: RouteEvent) -> str:
    p = e["probabilities"].get(e["route"])
    shown = p is not None and "(p=" not in e["reason"]  # the reason may state it already
    return f"route {e['route']}" + (f" (p={p:.2f})" if shown else "") + f": {e['reason']}"


def _retrieval(e: RetrievalEvent) -> str:
    return f"retrieved {e['new']} new passage(s) for: {e['query']}"


def _grades(e: GradesEvent) -> str:
    scores = ", ".join(f"{s['score']:+.2f}" for s in e["scores"])
    return f"graded: {scores or 'nothing to grade'}"


def _crag(e: CragActionEvent) -> str:
    best = "no passage" if e["best"] is None else f"best {e['best']:+.2f}"
    bounds = f"Correct at {e['upper']:+.2f}, Incorrect below {e['lower']:+.2f}"
    return f"CRAG {e['action']}: {best} ({bounds})"


def _strips(e: StripsEvent) -> str:
    return f"strips: kept {e['kept']} of {e['kept'] + e['dropped']}"


def _rewrite(e: RewriteEvent) -> str:
    target = "the web" if e["purpose"] == "web" else "another retrieval"
    return f"searched {target} for: {e['query']}" + (f" ({e['note']})" if e["note"] else "")


def _web(e: WebResultsEvent) -> str:
    note = f" ({e['degraded']})" if e["degraded"] else ""
    return f"web search [{e['backend']}]: {len(e['results'])} paragraph(s){note}"


def _ircot(e: IrcotStepEvent) -> str:
    said = e["sentence"] or "(no new sentence)"
    if e.get("dropped"):
        return f"IRCoT step {e['step']} dropped (not in the kept strips): {said}"
    return f"IRCoT step {e['step']}: {said}"


def _critique(e: CritiqueEvent) -> str:
    if not e["candidates"]:
        return "critique: no candidates"
    best = e["candidates"][0]
    count = len(e["candidates"])
    return (
        f"critique: {count} candidate(s); best: support {best['support']}, "
        f"score {best['score']:.2f}"
    )


def _retry(e: RetryEvent) -> str:
    return f"retry {e['attempt']}: {e['action']} ({e['why']})"


def _cap(e: CapReachedEvent) -> str:
    return f"cap reached ({e['cap']} = {e['limit']}): {e['reason']}"


def _fallback(e: FallbackEvent) -> str:
    why = shorten(e["problem"], 100, placeholder=" ...")
    return f"{e['judge']} did not give a usable answer ({why}); used {e['used']}"


_LINES: dict[str, Callable[[Any], str | None]] = {
    "question": _question,
    "route": _route,
    "retrieval": _retrieval,
    "grades": _grades,
    "crag_action": _crag,
    "strips": _strips,
    "rewrite": _rewrite,
    "web_results": _web,
    "ircot_step": _ircot,
    "critique": _critique,
    "retry": _retry,
    "cap_reached": _cap,
    "fallback": _fallback,
    "answer": lambda _: None,
}


def describe(event: Event) -> str | None:
    """Return one readable trace line for an event (None for the answer, rendered apart)."""
    return _LINES[event["type"]](event)


def _where(citation: Citation) -> str:
    label = citation["label"]  # `graphs.events.source_label`: a URL, or source#position
    return label if citation["origin"] == "web" else short_source(label)


def format_answer(event: AnswerEvent) -> str:
    """Return the answer with its citation markers, one source list, and its notes."""
    citations = event["citations"]
    markers = "".join(f"[{c['marker']}]" for c in citations)
    lines = [event["answer"] + (f" {markers}" if markers else "")]
    if citations:
        lines += ["", "Sources:"]
        lines += [f"[{c['marker']}] {c['title'] or 'untitled'} ({_where(c)})" for c in citations]
    if event["notes"]:
        lines += ["", *event["notes"]]
    return "\n".join(lines)


def render(event: dict[str, Any]) -> str | None:
    """Return the text for any event: a trace line, or the formatted answer."""
    typed = cast(Event, event)
    if typed["type"] == "answer":
        return format_answer(typed)
    return describe(typed)
