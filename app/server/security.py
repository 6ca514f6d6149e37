"""ASGI middleware: same-site requests only, an optional bearer token, text-only page headers.

`SameSiteMiddleware` stops other web sites from driving the server through the user's browser:
it refuses a `Host` that is not the server's own name (DNS rebinding) and an `Origin` that is
not the page's own (cross-site requests). All are plain ASGI (not `BaseHTTPMiddleware`) so
streamed responses pass through untouched.
Mounted into `langgraph dev`, custom middleware wraps the whole server, so the same token then
guards the LangGraph API as well.
"""

import hmac
import ipaddress
import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "CSP",
    "LOOPBACK_NAMES",
    "BearerTokenMiddleware",
    "SameSiteMiddleware",
    "SecurityHeadersMiddleware",
    "refuse",
]

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
"""Host names always accepted besides IP addresses (`*.localhost` resolves to loopback too)."""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
"""No inline scripts, no remote anything: an injected `<script>` or `onerror` could not run."""


async def refuse(
    send: Send, status: int, detail: str, extra: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """Answer a request with `status` and a JSON `detail`, without calling the app."""
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*headers, *extra]})
    await send({"type": "http.response.body", "body": body})


def _host_name(host: str) -> str:
    """Return the name part of a `Host` header value (`[::1]:80` -> `::1`)."""
    host = host.strip().lower()
    if host.startswith("["):  # `[v6]` or `[v6]:port`, nothing else after the bracket
        name, bracket, rest = host[1:].partition("]")
        port_ok = rest == "" or (rest.startswith(":") and rest[1:].isdigit())
        return name if bracket and port_ok else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class SameSiteMiddleware:
    """Refuse requests whose `Host` is a foreign name or whose `Origin` is another site.

    A `Host` passes if it is an IP address (a rebinding attack can only send the attacker's
    own name), a loopback name, or one of `allowed_hosts` (`*` allows any). An `Origin`, when
    present, must name the same host and port as the request itself, or be one of
    `allowed_origins`. Requests without `Origin` (curl, SDKs, page loads) pass.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Iterable[str] = (),
        allowed_origins: Iterable[str] = (),
    ) -> None:
        self.app = app
        self._hosts = {host.strip().lower() for host in allowed_hosts if host.strip()}
        self._origins = {origin.strip().lower().rstrip("/") for origin in allowed_origins}

    def _host_ok(self, host: str) -> bool:
        name = _host_name(host)
        return (
            "*" in self._hosts
            or _is_ip(name)
            or name in LOOPBACK_NAMES
            or name.endswith(".localhost")
            or name in self._hosts
        )

    def _origin_ok(self, origin: str, host: str) -> bool:
        origin = origin.strip().lower().rstrip("/")
        if origin in self._origins or "*" in self._origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc == host.strip().lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass same-site requests on; answer the others with 403."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host, origin = headers.get("host", ""), headers.get("origin")
        if not self._host_ok(host):
            detail = f"unexpected Host {host!r}: add it with --allow-host if it is this server"
            await refuse(send, 403, detail)
        elif origin is not None and not self._origin_ok(origin, host):
            detail = f"cross-site request from {origin!r} refused (--allow-origin to permit it)"
            await refuse(send, 403, detail)
        else:
            await self.app(scope, receive, send)


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
        await refuse(send, 401, "missing or wrong bearer token", [(b"www-authenticate", b"Bearer")])


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
