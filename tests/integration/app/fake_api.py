"""A scripted LangGraph-API server for browser tests of the page against the event contract.

It serves `app/static` under `/ui/` (with the real security headers) and fakes the run API the
page uses: runs stream every event type of `graphs.events.EXAMPLE_EVENTS` (with absolute file
paths, as the real graph reports them), answer tokens in `messages` mode, then the `answer`
event; `history` returns every turn's final state; `cancel` stops a run; uploads report each
file's own outcome. A question containing "slow" streams slowly (to press Stop); one containing
"revise" streams a draft that the answer event then replaces (`revised: true`).
"""

import asyncio
import copy
import json
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from app.server.security import SecurityHeadersMiddleware
from graphs.event_examples import EXAMPLE_EVENTS

STATIC_DIR = Path(__file__).resolve().parents[3] / "app" / "static"
ABSOLUTE = "/home/me/docs/harbour.md"
ANSWER = (
    "The Glassmere Lighthouse was **completed in 1887**.\n\n"
    "- It stands on the harbour wall.\n- Its keepers wrote `<img src=x onerror=alert(1)>`."
)
DRAFT = "A first draft that reflection will replace."


def _absolute(event: dict[str, Any]) -> dict[str, Any]:
    event = copy.deepcopy(event)
    for ref in [*event.get("passages", []), *event.get("scores", []), *event.get("citations", [])]:
        ref["source"], ref["label"] = ABSOLUTE, f"{ABSOLUTE}#{ref['position']}"
    for strip in event.get("strips", []):
        strip["label"] = f"{ABSOLUTE}#2"
    return event


STEPS = [_absolute(dict(e)) for kind, e in EXAMPLE_EVENTS.items() if kind != "answer"]


def answer_event(*, revised: bool) -> dict[str, Any]:
    """Return the final answer event, with an absolute source path in its citation."""
    event = _absolute(dict(EXAMPLE_EVENTS["answer"]))
    return {**event, "answer": ANSWER, "revised": revised, "notes": ["Degraded: no web search"]}


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class FakeApi:
    """Threads, turns and runs held in memory."""

    def __init__(self) -> None:
        self.threads: dict[str, dict[str, Any]] = {}
        self.turns: dict[str, list[dict[str, Any]]] = {}
        self.cancelled: dict[str, float] = {}
        self.runs: dict[str, asyncio.Event] = {}

    def final_states(self, thread_id: str) -> list[dict[str, Any]]:
        """Return each turn's final state, newest first."""
        states: list[dict[str, Any]] = []
        messages: list[dict[str, Any]] = []
        for turn in self.turns.get(thread_id, []):
            messages = [*messages, *turn["messages"]]
            values = {"messages": messages, "events": turn["events"], "question": turn["question"]}
            states.append({"values": values, "next": [], "metadata": {}})
        return states[::-1]

    async def run(self, thread_id: str, question: str) -> AsyncIterator[bytes]:
        """Stream one run, then keep its turn (unless it was cancelled)."""
        run_id, stop = str(uuid.uuid4()), asyncio.Event()
        self.runs[run_id] = stop
        delay = 1.0 if "slow" in question else 0.02
        yield _sse("metadata", {"run_id": run_id, "attempt": 1})
        for event in STEPS:
            if stop.is_set():
                return
            await asyncio.sleep(delay)
            yield _sse("custom", event)
        revised = "revise" in question
        for token in (DRAFT if revised else ANSWER).split(" "):
            await asyncio.sleep(delay / 2)
            chunk = {"type": "AIMessageChunk", "id": "run-1", "content": token + " "}
            yield _sse("messages", [chunk, {"langgraph_node": "generate"}])
        await asyncio.sleep(0.5 if revised else 0)  # reflection compares the candidates
        final = answer_event(revised=revised)
        yield _sse("custom", final)
        reply = {"type": "ai", "content": ANSWER, "response_metadata": {"citations": []}}
        messages = [{"type": "human", "content": question}, reply]
        turn = {"question": question, "messages": messages, "events": [*STEPS, final]}
        self.turns.setdefault(thread_id, []).append(turn)


def _app(api: FakeApi) -> Starlette:
    async def create(request: Request) -> Response:
        body = await request.json()
        thread_id = str(uuid.uuid4())
        thread = {"thread_id": thread_id, "metadata": body.get("metadata") or {}}
        api.threads[thread_id] = thread
        return JSONResponse(thread)

    async def search(request: Request) -> Response:
        return JSONResponse(list(api.threads.values())[::-1])

    async def state(request: Request) -> Response:
        states = api.final_states(str(request.path_params["tid"]))
        return JSONResponse(states[0] if states else {"values": {}, "next": []})

    async def history(request: Request) -> Response:
        return JSONResponse(api.final_states(str(request.path_params["tid"])))

    async def stream(request: Request) -> Response:
        body = await request.json()
        frames = api.run(str(request.path_params["tid"]), body["input"]["question"])
        return StreamingResponse(frames, media_type="text/event-stream")

    async def cancel(request: Request) -> Response:
        run_id = str(request.path_params["rid"])
        api.cancelled[run_id] = time.monotonic()
        api.runs[run_id].set()
        return Response(status_code=204)

    async def upload(request: Request) -> Response:
        async with request.form() as form:
            names = [getattr(f, "filename", "") for f in form.getlist("files")]
        lines = []
        for index, name in enumerate(names, start=1):
            line = {"file": name, "index": index, "total": len(names)}
            if name.endswith(".docx"):
                lines.append({**line, "phase": "skipped", "reason": "unsupported type .docx"})
            elif name.endswith(".md"):
                lines.append({**line, "phase": "unchanged", "reason": "already indexed"})
            else:
                lines.append({**line, "phase": "indexed", "reason": "3 chunks"})
        lines.append({"phase": "done", "total": len(names)})
        body = "".join(json.dumps(line) + "\n" for line in lines)
        return Response(body, media_type="application/x-ndjson")

    routes = [
        Route("/ok", lambda r: JSONResponse({"ok": True})),
        Route("/threads", create, methods=["POST"]),
        Route("/threads/search", search, methods=["POST"]),
        Route("/threads/{tid}/state", state),
        Route("/threads/{tid}/history", history, methods=["POST"]),
        Route("/threads/{tid}/runs/stream", stream, methods=["POST"]),
        Route("/threads/{tid}/runs/{rid}/cancel", cancel, methods=["POST"]),
        Route("/acrag/upload", upload, methods=["POST"]),
        Mount("/ui", app=StaticFiles(directory=STATIC_DIR, html=True)),
    ]
    return Starlette(routes=routes, middleware=[Middleware(SecurityHeadersMiddleware)])


@contextmanager
def serve_fake_api(port: int) -> Iterator[tuple[str, FakeApi]]:
    """Serve a fresh fake API on the loopback port; yield its URL and state."""
    api = FakeApi()
    config = uvicorn.Config(_app(api), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", api
    finally:
        server.should_exit = True
        thread.join(10)
