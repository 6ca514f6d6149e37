"""The stock server's ASGI app for the cluster workers, with one start-up fix.

`langgraph_api.server:app` wraps a custom app (`langgraph.json`'s `http.app`, our page) in
`EnsureStoreAccessible`, which asks for the store on every ASGI scope, the `lifespan` scope
included. The in-memory runtime has a store at once; the Postgres runtime opens its store
*in* the lifespan, so the first lifespan message fails, uvicorn decides the app has no
lifespan, and every request then fails with "Store requires setup_store()". Passing the
lifespan scope straight through fixes the order; requests still get the store as before.
Import this module only under the cluster's virtualenv (`.venv-cluster`).
"""

from typing import Any

from langgraph_api.middleware.ensure_store import EnsureStoreAccessible

__all__ = ["app"]

_request_call = EnsureStoreAccessible.__call__


async def _call(self: Any, scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await self.app(scope, receive, send)
        return
    await _request_call(self, scope, receive, send)


EnsureStoreAccessible.__call__ = _call

from langgraph_api.server import app  # noqa: E402  (after the fix: the app is built on import)
