"""ASGI middleware: an optional bearer token, and headers that keep the page text-only.

Both are plain ASGI (not `BaseHTTPMiddleware`) so streamed responses pass through untouched.
Mounted into `langgraph dev`, custom middleware wraps the whole server, so the same token then
guards the LangGraph API as well.
"""

import hmac
import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "BearerTokenMiddleware", "SecurityHeadersMiddleware"]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
"""No inline scripts, no remote anything: an injected `<script>` or `onerror` could not run."""


class BearerTokenMiddleware:
    """Require `Authorization: Bearer <token>` on every HTTP path but the public ones."""

    def __init__(self, app: ASGIApp, *, token: str, public: Iterable[str] = ("/ok",)) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()
        self._public = tuple(public)

    def _is_public(self, path: str) -> bool:
        # "/ui/" covers everything under it; "/" and "/ok" match only themselves.
        return any(
            path == p or (len(p) > 1 and p.endswith("/") and path.startswith(p))
            for p in self._public
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass authorised and public requests on; answer the rest with 401."""
        if scope["type"] != "http" or self._is_public(scope["path"]):
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"authorization", b"")
        if scope["method"] == "OPTIONS" or hmac.compare_digest(given, self._expected):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"detail": "missing or wrong bearer token"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b"Bearer"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class SecurityHeadersMiddleware:
    """Add `nosniff` and `no-referrer` everywhere, and a strict CSP to the page's HTML.

    Only HTML under `page_prefix` gets the CSP: mounted into `langgraph dev`, this middleware
    wraps the whole server, whose own `/docs` page loads its scripts from a CDN.
    """

    def __init__(self, app: ASGIApp, *, page_prefix: str = "/ui") -> None:
        self.app = app
        self._prefix = page_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Add the headers to every HTTP response."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        is_page = scope["path"].startswith(self._prefix)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"no-referrer"))
                content_type = dict(headers).get(b"content-type", b"")
                if (
                    is_page
                    and content_type.startswith(b"text/html")
                    and b"content-security-policy" not in names
                ):
                    headers.append((b"content-security-policy", CSP.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
