"""A fake Tavily HTTP server on loopback: Tavily's `/search` JSON, with injectable failures.

Queue failures with `fail(...)`: each queued action answers one request, then the server
returns to normal answers. Actions: "429", "500", "slow" (sleeps `slow_seconds` first),
"malformed" (a 200 whose body is not JSON) and "bad-shape" (JSON whose `results` is not a list).
"""

import json
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlparse

__all__ = ["FakePage", "FakeTavily"]


@dataclass(frozen=True)
class FakePage:
    """A page the fake web knows about."""

    url: str
    title: str
    content: str


def _words(text: str) -> set[str]:
    return {w.strip(".,?!:;\"'()").lower() for w in text.split()} - {""}


def _domain_match(url: str, domains: list[str]) -> bool:
    host = urlparse(url).hostname or ""
    return any(host == d or host.endswith("." + d) for d in domains)


class FakeTavily:
    """Serve `pages` as Tavily search results from a thread; use as a context manager."""

    def __init__(self, pages: list[FakePage], *, slow_seconds: float = 2.0) -> None:
        self.pages = pages
        self.slow_seconds = slow_seconds
        self.actions: deque[str] = deque()
        self.requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The base URL to pass as `api_base_url`."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def fail(self, *actions: str) -> None:
        """Queue failure actions for the next requests, in order."""
        self.actions.extend(actions)

    def __enter__(self) -> "FakeTavily":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def results(self, body: dict[str, Any]) -> dict[str, Any]:
        """Answer a search request the way Tavily does."""
        query = _words(str(body.get("query", "")))
        pages = [
            p
            for p in self.pages
            if not (
                body.get("include_domains") and not _domain_match(p.url, body["include_domains"])
            )
            and not _domain_match(p.url, body.get("exclude_domains") or [])
        ]
        scored = sorted(
            (
                (len(query & _words(p.title + " " + p.content)) / (len(query) or 1), p)
                for p in pages
            ),
            key=lambda sp: -sp[0],
        )
        results = [
            {
                "url": p.url,
                "title": p.title,
                "content": p.content[:200],
                "score": round(score, 4),
                "raw_content": p.content if body.get("include_raw_content") else None,
                "favicon": None,
            }
            for score, p in scored[: int(body.get("max_results") or 5)]
            if score > 0
        ]
        return {
            "query": body.get("query"),
            "answer": None,
            "images": [],
            "results": results,
            "response_time": 0.01,
            "request_id": str(uuid.uuid4()),
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                """Stay quiet."""

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:  # the client gave up (timeout test)
                    pass

            def do_POST(self) -> None:
                """Answer POST /search."""
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(
                    {"path": self.path, "body": body, "headers": dict(self.headers)}
                )
                if self.path != "/search":
                    return self._send(404, b'{"detail": {"error": "not found"}}')
                action = fake.actions.popleft() if fake.actions else "ok"
                if action == "429":
                    return self._send(429, b'{"detail": {"error": "rate limit exceeded"}}')
                if action == "500":
                    return self._send(500, b'{"detail": {"error": "internal error"}}')
                if action == "malformed":
                    return self._send(200, b"<html>this is not json")
                if action == "bad-shape":
                    return self._send(200, b'{"query": "x", "results": "oops"}')
                if action == "slow":
                    time.sleep(fake.slow_seconds)
                self._send(200, json.dumps(fake.results(body)).encode())

        return Handler
