"""The subset of the LangGraph run API that the chat page uses, served by `acrag serve`.

Same paths, bodies and SSE events as `langgraph dev`, so the page needs no switch:
`POST /threads`, `POST /threads/search`, `GET|DELETE /threads/{id}`, `GET /threads/{id}/state`,
`GET|POST /threads/{id}/history` and `POST /threads/{id}/runs/stream` (events `metadata`, then
one per stream-mode chunk: `updates`, `custom`, `messages` as `[chunk, metadata]`, `values`;
`error` if the run fails).
"""

import asyncio
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from app.server.encoding import dumps
from app.server.runs import GraphService, ThreadBusyError

__all__ = ["api_routes"]

_SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class _JSON(JSONResponse):
    def render(self, content: Any) -> bytes:
        return dumps(content).encode("utf-8")


def _error(status: int, detail: str) -> Response:
    return _JSON({"detail": detail}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ValueError(f"invalid JSON body: {error}") from error
    if not isinstance(body, dict):
        raise ValueError("the JSON body must be an object")
    return body


def _service(request: Request) -> GraphService:
    service: GraphService = request.app.state.service
    return service


async def _thread_or_404(request: Request) -> tuple[str, dict[str, Any] | Response]:
    thread_id = str(request.path_params["thread_id"])
    thread = await asyncio.to_thread(_service(request).registry.get, thread_id)
    return thread_id, thread if thread is not None else _error(404, f"thread {thread_id} not found")


async def create_thread(request: Request) -> Response:
    """Create a thread with optional `thread_id` and `metadata`."""
    body = await _body(request)
    create = _service(request).registry.create
    thread = await asyncio.to_thread(
        create, thread_id=body.get("thread_id"), metadata=body.get("metadata")
    )
    return _JSON(thread)


async def search_threads(request: Request) -> Response:
    """List threads, most recently updated first (`limit`, `offset`)."""
    body = await _body(request)
    limit, offset = int(body.get("limit", 20)), int(body.get("offset", 0))
    service = _service(request)
    threads = await asyncio.to_thread(service.registry.search, limit=limit, offset=offset)
    for thread in threads:
        thread["status"] = "busy" if service.is_busy(thread["thread_id"]) else "idle"
    return _JSON(threads)


async def get_thread(request: Request) -> Response:
    """Return one thread with its latest values."""
    thread_id, thread = await _thread_or_404(request)
    if isinstance(thread, Response):
        return thread
    state = await _service(request).state(thread_id)
    return _JSON({**thread, "values": state["values"] or None})


async def delete_thread(request: Request) -> Response:
    """Forget a thread (its checkpoints stay in the saver until pruned)."""
    thread_id = str(request.path_params["thread_id"])
    deleted = await asyncio.to_thread(_service(request).registry.delete, thread_id)
    return Response(status_code=204) if deleted else _error(404, f"thread {thread_id} not found")


async def thread_state(request: Request) -> Response:
    """Return the thread's latest state."""
    thread_id, thread = await _thread_or_404(request)
    if isinstance(thread, Response):
        return thread
    return _JSON(await _service(request).state(thread_id))


async def thread_history(request: Request) -> Response:
    """Return the thread's past states, newest first (`limit`)."""
    thread_id, thread = await _thread_or_404(request)
    if isinstance(thread, Response):
        return thread
    body = await _body(request) if request.method == "POST" else dict(request.query_params)
    limit = int(body.get("limit", 10))
    return _JSON(await _service(request).history(thread_id, limit=limit))


async def stream_run(request: Request) -> Response:
    """Run the graph on the thread and stream its chunks as Server-Sent Events."""
    thread_id, thread = await _thread_or_404(request)
    body = await _body(request)
    service = _service(request)
    if isinstance(thread, Response):
        if body.get("if_not_exists") != "create":
            return thread
        await asyncio.to_thread(service.registry.create, thread_id=thread_id)
    try:
        frames = service.start(thread_id, body)
    except ThreadBusyError:
        return _error(409, f"thread {thread_id} is busy with another run")
    return StreamingResponse(frames, media_type="text/event-stream", headers=_SSE_HEADERS)


async def ok(request: Request) -> Response:
    """Answer health checks."""
    return _JSON({"ok": True})


async def info(request: Request) -> Response:
    """Describe the server (the page uses it to tell `acrag serve` from `langgraph dev`)."""
    return _JSON({"server": "acrag", "graph_id": "acrag", "auth": request.app.state.token_set})


def api_routes() -> list[Route]:
    """Return the LangGraph-API-compatible routes."""
    return [
        Route("/ok", ok, methods=["GET"]),
        Route("/info", info, methods=["GET"]),
        Route("/threads", create_thread, methods=["POST"]),
        Route("/threads/search", search_threads, methods=["POST"]),
        Route("/threads/{thread_id}", get_thread, methods=["GET"]),
        Route("/threads/{thread_id}", delete_thread, methods=["DELETE"]),
        Route("/threads/{thread_id}/state", thread_state, methods=["GET"]),
        Route("/threads/{thread_id}/history", thread_history, methods=["GET", "POST"]),
        Route("/threads/{thread_id}/runs/stream", stream_run, methods=["POST"]),
    ]
