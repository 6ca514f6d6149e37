"""The run rules of `acrag serve`, as ASGI middleware in front of another run API server.

`acrag serve` checks every run request itself (`app.server.validation`). In front of the stock
LangGraph API server (the cluster) this middleware applies the same two rules before the
server sees the request: a run's `context` may set only the client fields of
`app.server.context_policy` within their bounds, and a question (`input.question`, the last
`input.messages` entry) may not be longer than `max_question_chars`. The stock server also
takes a run's context from `config.configurable` and from the assistant a run names, so both
are held to the same allow-list (runs, crons, and creating or changing an assistant). Anything
else is a 422 with the message `acrag serve` gives. `BodyLimitMiddleware` already caps bodies.
"""

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.server.context_policy import client_context
from app.server.errors import RequestError
from app.server.security import refuse

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ASSISTANT_PATH", "RUN_PATH", "RunPolicyMiddleware", "check_context", "check_run_body"]

RUN_PATH = re.compile(r"^(/threads/[^/]+)?/runs(/stream|/wait|/batch|/crons)?/?$")
"""Paths that create runs: on a thread or thread-less, streamed, waited, batched or scheduled."""
ASSISTANT_PATH = re.compile(r"^/assistants(/[^/]+)?/?$")
"""Paths that create (POST) or change (PATCH) an assistant, whose context every run gets."""


def _question_length(text: object, max_chars: int) -> None:
    if isinstance(text, str) and len(text) > max_chars:
        raise RequestError(f"the question has {len(text)} characters; the limit is {max_chars}")


def check_context(body: dict[str, Any]) -> None:
    """Raise RequestError (422) unless `context` and `config.configurable` are client fields."""
    client_context(body.get("context"))
    config = body.get("config")
    configurable = config.get("configurable") if isinstance(config, dict) else None
    if isinstance(configurable, dict):
        client_context({k: v for k, v in configurable.items() if k != "thread_id"})


def check_run_body(body: object, *, max_question_chars: int) -> None:
    """Raise RequestError (422) when a run request breaks the context or question rules."""
    for run in body if isinstance(body, list) else [body]:
        if not isinstance(run, dict):
            raise RequestError("a run request must be a JSON object")
        check_context(run)
        value = run.get("input")
        if isinstance(value, dict):
            _question_length(value.get("question"), max_question_chars)
            messages = value.get("messages")
            if isinstance(messages, list) and messages:
                last = messages[-1]
                _question_length(
                    last.get("content") if isinstance(last, dict) else last, max_question_chars
                )


class RunPolicyMiddleware:
    """Refuse run requests whose context or question breaks the rules; pass the rest on."""

    def __init__(self, app: "ASGIApp", *, max_question_chars: int = 2000) -> None:
        self.app = app
        self.max_question_chars = max_question_chars

    def _checker(self, scope: "Scope") -> Callable[[Any], None] | None:
        if scope["type"] != "http":
            return None
        method, path = scope["method"], scope["path"]
        if method == "POST" and RUN_PATH.match(path):
            return lambda body: check_run_body(body, max_question_chars=self.max_question_chars)
        if (
            method in ("POST", "PATCH")
            and ASSISTANT_PATH.match(path)
            and path != "/assistants/search"
        ):
            return lambda body: check_context(body) if isinstance(body, dict) else None
        return None

    async def __call__(self, scope: "Scope", receive: "Receive", send: "Send") -> None:
        """Read a run or assistant request's body, check it, then replay it unchanged."""
        checked = self._checker(scope)
        if checked is None:
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        try:
            checked(json.loads(raw) if raw.strip() else {})
        except json.JSONDecodeError:
            pass  # the server answers malformed JSON itself
        except (RequestError, ValueError) as error:
            await refuse(send, getattr(error, "status", 422), str(error))
            return
        replayed = False

        async def replay() -> "Message":
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": raw, "more_body": False}

        await self.app(scope, replay, send)
