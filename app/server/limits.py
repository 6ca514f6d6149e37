"""The server's resource limits, and the middleware that caps request bodies as they arrive.

Every limit has a default here and an `acrag serve` option; `docs/security.md` lists them.
"""

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI reads the defaults without loading the web stack
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimitMiddleware", "ServerLimits"]

MB = 2**20


@dataclass(frozen=True)
class ServerLimits:
    """What one client may ask of the server."""

    max_body_mb: float = 1.0
    """Largest JSON request body."""
    max_upload_mb: float = 20.0
    """Largest single uploaded file (checked while it streams in)."""
    max_upload_files: int = 20
    """Most files in one upload."""
    max_upload_request_mb: float = 100.0
    """Largest whole upload request (all files together)."""
    max_question_chars: int = 2000
    """Longest question a run accepts (the run's Context cannot raise it)."""
    run_timeout_s: float = 300.0
    """Longest a run may take before the server stops it."""
    max_runs: int = 8
    """Runs in flight at once (each holds a worker thread)."""
    max_threads: int = 1000
    """Most conversations kept; creating one more is refused until some are deleted."""
    max_connections: int = 64
    """Open connections (and requests in flight) before new requests get 503."""
    max_header_kb: int = 16
    """Largest request head (request line and every header), in KiB."""
    max_headers: int = 64
    """Most header fields in one request."""
    header_timeout_s: float = 10.0
    """Longest a connection may take to send a complete request head."""
    body_timeout_s: float = 60.0
    """Longest a request may take to send its whole body."""
    idle_timeout_s: float = 5.0
    """Longest an idle keep-alive connection stays open."""

    def body_limit(self, path: str) -> int:
        """Return the most bytes a request body to `path` may hold."""
        mb = self.max_upload_request_mb if path.endswith("/acrag/upload") else self.max_body_mb
        return int(mb * MB)


class BodyLimitMiddleware:
    """Answer 413 to a body over its limit (declared or streamed), 408 to one sent too slowly.

    Also 431 to a request with too many or too large header fields (a head arriving in many
    pieces is already cut off by the HTTP parser at `max_header_kb`).
    """

    def __init__(self, app: "ASGIApp", *, limits: ServerLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: "Scope", receive: "Receive", send: "Send") -> None:
        """Check the declared length, then count the bytes that actually arrive."""
        from starlette.datastructures import Headers
        from starlette.exceptions import HTTPException

        from app.server.security import refuse

        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope["headers"]
        head_bytes = sum(len(name) + len(value) + 4 for name, value in headers)
        if len(headers) > self.limits.max_headers or head_bytes > self.limits.max_header_kb * 1024:
            detail = f"at most {self.limits.max_headers} header fields, {self.limits.max_header_kb}"
            await refuse(send, 431, f"{detail} KiB in all")
            return
        limit = self.limits.body_limit(scope["path"])
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await refuse(send, 413, f"the request body is over {limit / MB:g} MB")
            return
        received = 0
        complete = False
        deadline = asyncio.get_running_loop().time() + self.limits.body_timeout_s

        async def counted() -> "Message":
            nonlocal received, complete
            if complete:  # after the body, `receive` only waits for the client to leave
                return await receive()
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(receive(), max(left, 0.0))
            except TimeoutError:
                raise HTTPException(408, "the request body was sent too slowly") from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                complete = not message.get("more_body", False)
                if received > limit:
                    raise HTTPException(413, f"the request body is over {limit / MB:g} MB")
            return message

        await self.app(scope, counted, send)
