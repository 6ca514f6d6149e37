"""Connection limits: uvicorn's h11 protocol with a deadline for every request head.

uvicorn's default parser (httptools) accepts request heads of any size, and neither parser
times out a connection that trickles its head in a byte at a time. acrag serves with h11,
whose `max_incomplete_event_size` bounds the head (request line and headers), and this
subclass closes a connection that has not sent a complete head within `header_timeout_s`.
Idle keep-alive connections close after `idle_timeout_s`; `max_connections` answers 503 past
that many open connections. A client that goes away is logged in one line, without traceback.

A head that is refused (too large, malformed) gets uvicorn's 400 and a *lingering* close, as
Apache and nginx do: the server stops writing, then reads and drops what the client is still
sending, for up to `linger_s`, before closing. Closing at once with the client's unread bytes
in the socket makes the kernel send a reset, and a client still uploading its 64 KiB head
then sees "connection reset" instead of the 400.
"""

import asyncio
import logging
from typing import Any

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.server.limits import ServerLimits

__all__ = ["DisconnectLogMiddleware", "HeadDeadlineProtocol", "uvicorn_config"]

logger = logging.getLogger(__name__)


class _LingeringClose:
    """A transport whose `close` half-closes and drops input for `seconds` before closing."""

    def __init__(
        self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop, seconds: float
    ) -> None:
        self._transport = transport
        self._loop = loop
        self._seconds = seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def close(self) -> None:
        if self._transport.is_closing() or not self._transport.can_write_eof():
            self._transport.close()
            return
        self._transport.write_eof()  # the response is flushed first, then FIN
        self._loop.call_later(self._seconds, self._transport.close)


class HeadDeadlineProtocol(H11Protocol):
    """h11 with a deadline for every request head, from connect or from the last response."""

    head_timeout_s = 10.0
    linger_s = 2.0
    _lingering = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the head deadline as the connection opens."""
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._arm_head_timer()

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_too_slow)

    def _disarm_head_timer(self) -> None:
        if getattr(self, "_head_timer", None) is not None:
            self._head_timer.cancel()  # type: ignore[union-attr]
            self._head_timer = None

    def _head_too_slow(self) -> None:
        if self.cycle is None or self.cycle.response_complete:
            logger.info("closing a connection that sent no request in %gs", self.head_timeout_s)
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """Answer a refused head with uvicorn's 400, then a lingering close instead of a reset."""
        transport = self.transport
        lingering = _LingeringClose(transport, self.loop, self.linger_s)
        self.transport = lingering  # type: ignore[assignment]
        try:
            super().send_400_response(msg)
        finally:
            self.transport = transport
        self._lingering = True
        self._disarm_head_timer()

    def data_received(self, data: bytes) -> None:
        """Parse as h11 does; a new request's complete head stops the deadline."""
        if self._lingering:  # the rest of a refused request: read and dropped
            return
        before = self.cycle
        super().data_received(data)
        if self.cycle is not before:
            self._disarm_head_timer()

    def on_response_complete(self) -> None:
        """Give the next request on this connection its own head deadline."""
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the deadline with the connection."""
        self._disarm_head_timer()
        super().connection_lost(exc)


class DisconnectLogMiddleware:
    """Log a client that left mid-request in one line, instead of an ASGI traceback."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; a client disconnect ends it quietly."""
        try:
            await self.app(scope, receive, send)
        except (ClientDisconnect, ConnectionError) as error:
            method, path = scope.get("method", ""), scope.get("path", "")
            logger.info("client left during %s %s (%s)", method, path, type(error).__name__)


def uvicorn_config(app: Any, limits: ServerLimits) -> Config:
    """Return uvicorn's configuration for `app` under `limits`."""
    protocol = type(
        "BoundedH11Protocol", (HeadDeadlineProtocol,), {"head_timeout_s": limits.header_timeout_s}
    )
    return Config(
        DisconnectLogMiddleware(app),
        http=protocol,
        h11_max_incomplete_event_size=limits.max_header_kb * 1024,
        limit_concurrency=limits.max_connections,
        timeout_keep_alive=max(1, round(limits.idle_timeout_s)),
        log_level="warning",
    )
