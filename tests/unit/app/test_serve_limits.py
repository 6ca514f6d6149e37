"""Issue 36: header count, slow bodies, the thread cap, odd `Host` values, uvicorn's limits."""

import asyncio

import pytest

from app.server.limits import BodyLimitMiddleware, ServerLimits
from app.server.protocol import HeadDeadlineProtocol, _LingeringClose, uvicorn_config


def test_too_many_header_fields_are_refused(client):
    headers = [(f"x-h{i}", "1") for i in range(ServerLimits().max_headers + 1)]
    assert client.get("/ok", headers=headers).status_code == 431
    assert client.get("/ok", headers=headers[:10]).status_code == 200


def test_a_body_sent_too_slowly_is_refused_with_408():
    limits = ServerLimits(body_timeout_s=0.05)
    sent: list[dict] = []

    async def app(scope, receive, send):
        from starlette.exceptions import HTTPException

        try:
            await receive()
            await receive()  # never comes: the client stalls mid-body
        except HTTPException as error:
            sent.append({"status": error.status_code})

    async def receive():
        if not sent and not hasattr(receive, "started"):
            receive.started = True  # type: ignore[attr-defined]
            return {"type": "http.request", "body": b"{", "more_body": True}
        await asyncio.Event().wait()

    scope = {"type": "http", "path": "/threads", "headers": []}
    asyncio.run(BodyLimitMiddleware(app, limits=limits)(scope, receive, lambda m: None))
    assert sent == [{"status": 408}]


def test_threads_are_capped(make_client):
    client = make_client()
    client.app.state.service.registry.max_threads = 2
    assert client.post("/threads", json={}).status_code == 200
    assert client.post("/threads", json={"thread_id": "b"}).status_code == 200
    assert client.post("/threads", json={"thread_id": "b"}).status_code == 200  # existing
    refused = client.post("/threads", json={})
    assert refused.status_code == 429 and "at most 2 threads" in refused.json()["detail"]
    body = {"input": {"question": "hi"}, "if_not_exists": "create"}
    assert client.post("/threads/new/runs/stream", json=body).status_code == 429
    assert client.delete("/threads/b").status_code == 204
    assert client.post("/threads", json={}).status_code == 200


@pytest.mark.parametrize("host", ["[::1]evil.example", "[::1]:80x", "[::1", "[::1]@a"])
def test_a_bracketed_host_with_anything_after_it_is_refused(client, host):
    assert client.get("/ok", headers={"Host": host}).status_code == 403


@pytest.mark.parametrize("host", ["[::1]", "[::1]:8123"])
def test_a_bracketed_loopback_host_passes(client, host):
    assert client.get("/ok", headers={"Host": host}).status_code == 200


def test_uvicorn_runs_h11_with_bounded_heads_and_connections():
    limits = ServerLimits(max_header_kb=8, max_connections=5, header_timeout_s=3)
    config = uvicorn_config(object(), limits)
    assert issubclass(config.http, HeadDeadlineProtocol)  # type: ignore[arg-type]
    assert config.http.head_timeout_s == 3  # type: ignore[union-attr]
    assert config.h11_max_incomplete_event_size == 8 * 1024
    assert config.limit_concurrency == 5


class _Transport:
    def __init__(self, *, can_write_eof: bool = True) -> None:
        self.calls: list[str] = []
        self._can_write_eof = can_write_eof

    def is_closing(self) -> bool:
        return "close" in self.calls

    def can_write_eof(self) -> bool:
        return self._can_write_eof

    def write_eof(self) -> None:
        self.calls.append("write_eof")

    def close(self) -> None:
        self.calls.append("close")

    def get_extra_info(self, name: str) -> str:
        return f"extra {name}"


class _Loop:
    def __init__(self) -> None:
        self.later: list[tuple[float, object]] = []

    def call_later(self, delay: float, callback) -> None:
        self.later.append((delay, callback))


def test_a_refused_head_closes_by_lingering_not_at_once():
    transport, loop = _Transport(), _Loop()
    lingering = _LingeringClose(transport, loop, 2.0)  # type: ignore[arg-type]
    lingering.close()
    assert transport.calls == ["write_eof"]  # FIN after the response; input still read
    assert lingering.get_extra_info("peername") == "extra peername"
    ((delay, close),) = loop.later
    assert delay == 2.0
    close()  # type: ignore[operator]
    assert transport.calls == ["write_eof", "close"]


def test_a_transport_that_cannot_half_close_closes_at_once():
    transport, loop = _Transport(can_write_eof=False), _Loop()
    _LingeringClose(transport, loop, 2.0).close()  # type: ignore[arg-type]
    assert transport.calls == ["close"] and loop.later == []
