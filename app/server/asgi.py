"""The HTTP apps: the chat page (+ upload) alone for `langgraph dev`, or with the run API.

`app` is what `langgraph.json` mounts (`"http": {"app": "app.server.asgi:app"}`): the page under
`/ui/` and `/acrag/upload`; the LangGraph API itself comes from `langgraph dev`. `create_app`
builds the same app plus the LangGraph-API subset of `app.server.api` for `acrag serve`.
"""

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from app.server.api import api_routes
from app.server.errors import RequestError
from app.server.limits import BodyLimitMiddleware, ServerLimits
from app.server.runs import GraphService
from app.server.security import (
    BearerTokenMiddleware,
    SameSiteMiddleware,
    SecurityHeadersMiddleware,
)
from app.server.upload import IngestFn, real_ingest, upload

__all__ = [
    "ALLOWED_HOSTS_ENV",
    "ALLOWED_ORIGINS_ENV",
    "STATIC_DIR",
    "STUDIO_ORIGIN",
    "TOKEN_ENV",
    "app",
    "create_app",
]

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
TOKEN_ENV = "ACRAG_SERVE_TOKEN"
"""Bearer token for the app mounted into `langgraph dev` (it then guards the whole server)."""
ALLOWED_HOSTS_ENV = "ACRAG_ALLOWED_HOSTS"
"""Comma-separated extra `Host` names accepted (besides IP addresses and loopback names)."""
ALLOWED_ORIGINS_ENV = "ACRAG_ALLOWED_ORIGINS"
"""Comma-separated extra origins allowed to call the server from a browser."""
STUDIO_ORIGIN = "https://smith.langchain.com"
"""LangGraph Studio's origin: allowed by default when mounted into `langgraph dev`."""


async def _value_error(request: Request, exc: Exception) -> Response:
    status = exc.status if isinstance(exc, RequestError) else 422
    return JSONResponse({"detail": str(exc)}, status_code=status)


def _env_list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


async def _to_page(request: Request) -> Response:
    return RedirectResponse("/ui/", status_code=307)


def _page_routes() -> list[BaseRoute]:
    return [
        Mount("/ui", app=StaticFiles(directory=STATIC_DIR, html=True), name="ui"),
        Route("/acrag/upload", upload, methods=["POST"]),
    ]


def create_app(
    *,
    service: GraphService | None = None,
    home: Path | None = None,
    token: str | None = None,
    ingest: IngestFn = real_ingest,
    limits: ServerLimits | None = None,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
) -> Starlette:
    """Build the HTTP app.

    Args:
        service: The graph service behind the run API; None serves only the page and upload
            (for mounting into `langgraph dev`, which brings the API).
        home: The data directory uploads are saved and indexed into (None: `acrag_home()`
            at request time).
        token: Require `Authorization: Bearer <token>` on everything but the page and `/ok`.
        ingest: Indexes one uploaded file (replaced by a fake in tests).
        limits: Body, upload, question and run limits (defaults: `ServerLimits()`).
        allowed_hosts: `Host` names accepted besides IP addresses and loopback names.
        allowed_origins: Browser origins allowed besides the page's own.
    """
    limits = limits or ServerLimits()
    routes = _page_routes()
    if service is not None:
        routes = [Route("/", _to_page, methods=["GET"]), *api_routes(), *routes]
    middleware = [
        Middleware(SecurityHeadersMiddleware),
        Middleware(
            SameSiteMiddleware, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins
        ),
        Middleware(BodyLimitMiddleware, limits=limits),
    ]
    if token:
        middleware.append(
            Middleware(BearerTokenMiddleware, token=token, public=("/", "/ok", "/ui/"))
        )
    handlers = {RequestError: _value_error, ValueError: _value_error}
    application = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers)
    application.state.service = service
    application.state.home = home
    application.state.token_set = bool(token)
    application.state.ingest = ingest
    # One ingestion at a time: it is CPU-bound anyway, and the embedded vector store and the
    # embedding model are not safe to set up from many threads at once (parallel uploads to a
    # fresh server failed in `transformers` imports and in Chroma's tenant set-up).
    application.state.ingest_lock = asyncio.Lock()
    application.state.limits = limits
    application.state.max_question_chars = limits.max_question_chars
    return application


app = create_app(
    token=os.environ.get(TOKEN_ENV) or None,
    allowed_hosts=_env_list(ALLOWED_HOSTS_ENV),
    allowed_origins=[STUDIO_ORIGIN, *_env_list(ALLOWED_ORIGINS_ENV)],
)
