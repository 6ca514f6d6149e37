"""The HTTP apps: the chat page (+ upload) alone for `langgraph dev`, or with the run API.

`app` is what `langgraph.json` mounts (`"http": {"app": "app.server.asgi:app"}`): the page under
`/ui/` and `/acrag/upload`; the LangGraph API itself comes from `langgraph dev`. `create_app`
builds the same app plus the LangGraph-API subset of `app.server.api` for `acrag serve`.
"""

import os
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from app.server.api import api_routes
from app.server.runs import GraphService
from app.server.security import BearerTokenMiddleware, SecurityHeadersMiddleware
from app.server.upload import MAX_UPLOAD_MB, IngestFn, real_ingest, upload

__all__ = ["STATIC_DIR", "TOKEN_ENV", "app", "create_app"]

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
TOKEN_ENV = "ACRAG_SERVE_TOKEN"
"""Bearer token for the app mounted into `langgraph dev` (it then guards the whole server)."""


async def _value_error(request: Request, exc: Exception) -> Response:
    return JSONResponse({"detail": str(exc)}, status_code=422)


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
    max_upload_mb: float = MAX_UPLOAD_MB,
) -> Starlette:
    """Build the HTTP app.

    Args:
        service: The graph service behind the run API; None serves only the page and upload
            (for mounting into `langgraph dev`, which brings the API).
        home: The data directory uploads are saved and indexed into (None: `acrag_home()`
            at request time).
        token: Require `Authorization: Bearer <token>` on everything but the page and `/ok`.
        ingest: Indexes uploaded files (replaced by a fake in tests).
        max_upload_mb: The largest file accepted.
    """
    routes = _page_routes()
    if service is not None:
        routes = [Route("/", _to_page, methods=["GET"]), *api_routes(), *routes]
    middleware = [Middleware(SecurityHeadersMiddleware)]
    if token:
        middleware.append(
            Middleware(BearerTokenMiddleware, token=token, public=("/", "/ok", "/ui/"))
        )
    application = Starlette(
        routes=routes, middleware=middleware, exception_handlers={ValueError: _value_error}
    )
    application.state.service = service
    application.state.home = home
    application.state.token_set = bool(token)
    application.state.ingest = ingest
    application.state.max_upload_mb = max_upload_mb
    return application


app = create_app(token=os.environ.get(TOKEN_ENV) or None)
