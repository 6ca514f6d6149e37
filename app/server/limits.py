"""The server's resource limits, and the middleware that caps request bodies as they arrive.

Every limit has a default here and an `acrag serve` option; `docs/security.md` lists them.
"""

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

    def body_limit(self, path: str) -> int:
        """Return the most bytes a request body to `path` may hold."""
        mb = self.max_upload_request_mb if path.endswith("/acrag/upload") else self.max_body_mb
        return int(mb * MB)


class BodyLimitMiddleware:
    """Answer 413 to a request body over its limit: by `Content-Length`, or while it streams."""

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
        limit = self.limits.body_limit(scope["path"])
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await refuse(send, 413, f"the request body is over {limit / MB:g} MB")
            return
        received = 0

        async def counted() -> "Message":
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise HTTPException(413, f"the request body is over {limit / MB:g} MB")
            return message

        await self.app(scope, counted, send)
