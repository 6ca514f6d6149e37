"""Node `finalize`: the final answer with its citations, and why the run stopped if a cap hit."""

from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.deps import Deps
from graphs.events import event
from graphs.state import Citation, State, Strip
from models.judges_heuristic import content_tokens
from nodes._answer_stream import stream_answer
from nodes._common import label

__all__ = ["NO_ANSWER", "NO_EVIDENCE", "cite", "degraded_notes", "finalize"]

NO_ANSWER = "I could not produce an answer."
NO_EVIDENCE = "no relevant passages were found, so this answer comes from the model alone"


def cite(answer: str, evidence: Sequence[Strip], *, question: str = "") -> list[Citation]:
    """Return the evidence strips that share the answer's new words (all of them if none do)."""
    words = (content_tokens(answer) - content_tokens(question)) or content_tokens(answer)
    supporting = [s for s in evidence if words & content_tokens(s["text"])] or list(evidence)
    citations: list[Citation] = []
    seen: set[str] = set()
    for strip in supporting:
        if label(strip) in seen:
            continue
        seen.add(label(strip))
        citations.append(
            Citation(
                marker=len(citations) + 1,
                title=strip["title"],
                source=strip["source"],
                position=strip["position"],
                url=strip["url"],
                origin=strip["origin"],
                text=strip["text"],
            )
        )
    return citations


def degraded_notes(events: Sequence[dict[str, Any]]) -> list[str]:
    """Return one note per distinct reason the run degraded (a store, model or web failure)."""
    reasons = [
        e["degraded"]
        for e in events
        if e.get("degraded") and not (e["type"] == "web_results" and e.get("backend") == "none")
    ]
    return [f"Degraded: {reason}." for reason in dict.fromkeys(reasons)]


def _compose(answer: str, citations: Sequence[Citation], notes: Sequence[str]) -> str:
    lines = [
        answer + ("" if not citations else " " + "".join(f"[{c['marker']}]" for c in citations))
    ]
    if citations:
        lines += ["", "Sources:"]
        for c in citations:
            where = (
                c["url"]
                if c["origin"] == "web"
                else (
                    c["source"] if c["position"] is None else f"{c['source']}, part {c['position']}"
                )
            )
            origin = "web" if c["origin"] == "web" else "local"
            lines.append(f"[{c['marker']}] ({origin}) {c['title'] or 'untitled'}: {where}")
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def finalize(state: State, runtime: Runtime[Context], deps: Deps) -> dict[str, Any]:
    """Pick the best candidate, attach citations and any stop notice, and append the AI turn."""
    candidates = state.get("candidates") or []
    best = candidates[0] if candidates else None
    text = (best["text"] if best else "") or state.get("ircot_answer") or NO_ANSWER
    strips = {s["hash"]: s for s in state.get("strips") or []}
    evidence = [strips[h] for h in (best["strip_hashes"] if best else []) if h in strips]
    citations = cite(text, evidence, question=state.get("standalone_question", ""))
    notes = [f"Stopped early: {state['stop_reason']}."] if state.get("stop_reason") else []
    notes += degraded_notes(state.get("events") or [])
    if state.get("route") in ("B", "C") and not evidence:
        notes.append(f"Note: {NO_EVIDENCE}.")
    answer = _compose(text, citations, notes)
    events = [
        event(
            runtime,
            "answer",
            "finalize",
            answer=answer,
            route=state.get("route"),
            citations=[
                label(s) for s in evidence if any(c["text"] == s["text"] for c in citations)
            ],
            stop_reason=state.get("stop_reason"),
        )
    ]
    return {
        "answer": answer,
        "citations": citations,
        "events": events,
        "messages": [stream_answer(answer)],
    }
