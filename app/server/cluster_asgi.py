"""The stock server's ASGI app for the cluster workers, with one start-up fix.

`langgraph_api.server:app` wraps a custom app (`langgraph.json`'s `http.app`, our page) in
`EnsureStoreAccessible`, which asks for the store on every ASGI scope, the `lifespan` scope
included. The in-memory runtime has a store at once; the Postgres runtime opens its store
*in* the lifespan, so the first lifespan message fails, uvicorn decides the app has no
lifespan, and every request then fails with "Store requires setup_store()". Passing the
lifespan scope straight through fixes the order; requests still get the store as before.

Outermost, `RunPolicyMiddleware` holds `acrag serve`'s run rules (context allow-list, question
length; `ACRAG_MAX_QUESTION_CHARS`, default 2000); the mounted page app's own middleware (token,
Origin/Host, body limit, security headers) already wraps the whole stock server.
Import this module only under the cluster's virtualenv (`.venv-cluster`).
"""

import os
from typing import Any

from langgraph_api.middleware.ensure_store import EnsureStoreAccessible

from app.server.limits import ServerLimits
from app.server.run_policy import RunPolicyMiddleware

__all__ = ["app"]

_request_call = EnsureStoreAccessible.__call__


async def _call(self: Any, scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await self.app(scope, receive, send)
        return
    await _request_call(self, scope, receive, send)


EnsureStoreAccessible.__call__ = _call

from langgraph_api.server import app as stock_app  # noqa: E402  (the app is built on import)

MAX_QUESTION_CHARS_ENV = "ACRAG_MAX_QUESTION_CHARS"
_max_chars = int(os.environ.get(MAX_QUESTION_CHARS_ENV) or ServerLimits().max_question_chars)
app = RunPolicyMiddleware(stock_app, max_question_chars=_max_chars)
