"""The subset of the LangGraph run API that the chat page uses, served by `acrag serve`.

Same paths, bodies and SSE events as `langgraph dev`, so the page needs no switch:
`POST /threads`, `POST /threads/search`, `GET|DELETE /threads/{id}`, `GET /threads/{id}/state`,
`GET|POST /threads/{id}/history`, `POST /threads/{id}/runs/stream` (events `metadata` with the
`run_id`, then one per stream-mode chunk: `updates`, `custom`, `messages` as `[chunk, metadata]`,
`values`; `error` if the run fails or is stopped) and
`POST /threads/{id}/runs/{run_id}/cancel`. Every body is checked whole before anything starts.
"""

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from app.server.encoding import dumps
from app.server.errors import RequestError
from app.server.runs import GraphService, ThreadBusyError
from app.server.threads import ThreadLimitError
from app.server.validation import (
    check_thread_id,
    int_field,
    json_object,
    metadata_field,
    parse_run_request,
)

__all__ = ["api_routes"]

_SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
MAX_PAGE = 1000
"""The most threads or states one search or history call returns."""


class _JSON(JSONResponse):
    def render(self, content: Any) -> bytes:
        return dumps(content).encode("utf-8")


def _error(status: int, detail: str) -> Response:
    return _JSON({"detail": detail}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    return json_object(await request.body(), request.headers.get("content-type"))


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
    thread_id = body.get("thread_id")
    thread_id = None if thread_id is None else check_thread_id(thread_id)
    metadata = metadata_field(body)
    create = _service(request).registry.create
    try:
        thread = await asyncio.to_thread(create, thread_id=thread_id, metadata=metadata)
    except ThreadLimitError as error:
        return _error(429, str(error))
    return _JSON(thread)


async def search_threads(request: Request) -> Response:
    """List threads, most recently updated first (`limit`, `offset`)."""
    body = await _body(request)
    limit = int_field(body, "limit", default=20, low=1, high=MAX_PAGE)
    offset = int_field(body, "offset", default=0, low=0, high=10**6)
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
    """Delete a thread with all its checkpoints (409 while a run is in flight)."""
    thread_id = str(request.path_params["thread_id"])
    try:
        deleted = await _service(request).delete(thread_id)
    except ThreadBusyError:
        return _error(409, f"thread {thread_id} is busy with a run; cancel it first")
    return Response(status_code=204) if deleted else _error(404, f"thread {thread_id} not found")


async def thread_state(request: Request) -> Response:
    """Return the thread's latest state."""
    thread_id, thread = await _thread_or_404(request)
    if isinstance(thread, Response):
        return thread
    return _JSON(await _service(request).state(thread_id))


def _before(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("checkpoint_id", (value.get("configurable") or {}).get("checkpoint_id"))
    if value is None or (isinstance(value, str) and 0 < len(value) <= 128):
        return value
    raise RequestError("before must be a checkpoint id or {'checkpoint_id': ...}")


async def thread_history(request: Request) -> Response:
    """Return the thread's past states, newest first.

    Body (or query): `limit` (1-1000, default 10), `before` (a checkpoint id), `metadata` (a
    filter on checkpoint metadata), and acrag's `turns: true` for one state per finished run.
    """
    thread_id, thread = await _thread_or_404(request)
    if isinstance(thread, Response):
        return thread
    body = await _body(request) if request.method == "POST" else dict(request.query_params)
    turns = body.get("turns") in (True, "true", "1")
    history = await _service(request).history(
        thread_id,
        limit=int_field(body, "limit", default=10, low=1, high=MAX_PAGE),
        before=_before(body.get("before")),
        metadata=metadata_field(body) if request.method == "POST" else None,
        turns=turns,
    )
    return _JSON(history)


async def stream_run(request: Request) -> Response:
    """Run the graph on the thread and stream its chunks as Server-Sent Events."""
    service = _service(request)
    body = await _body(request)
    run_request = parse_run_request(body, max_question_chars=request.app.state.max_question_chars)
    thread_id, thread = await _thread_or_404(request)
    if isinstance(thread, Response):
        if not run_request.create:
            return thread
        create = service.registry.create
        try:
            await asyncio.to_thread(create, thread_id=check_thread_id(thread_id))
        except ThreadLimitError as error:
            return _error(429, str(error))
    try:
        run = service.start(thread_id, run_request)
    except ThreadBusyError:
        return _error(409, f"thread {thread_id} is busy with another run")
    headers = {**_SSE_HEADERS, "Content-Location": f"/threads/{thread_id}/runs/{run.run_id}"}
    return StreamingResponse(service.frames(run), media_type="text/event-stream", headers=headers)


async def cancel_run(request: Request) -> Response:
    """Stop a run in flight (202); with `?wait=true`, answer once it has stopped."""
    thread_id = str(request.path_params["thread_id"])
    run_id = str(request.path_params["run_id"])
    wait = request.query_params.get("wait", "false").lower() in {"true", "yes", "1"}
    if not await _service(request).cancel(thread_id, run_id, wait=wait):
        return _error(404, f"no run {run_id} in flight on thread {thread_id}")
    return Response(status_code=202)


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
        Route("/threads/{thread_id}/runs/{run_id}/cancel", cancel_run, methods=["POST"]),
    ]
