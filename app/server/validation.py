"""Request checks for the run API: JSON bodies, ids, paging, metadata, and whole run requests.

Everything a client sends is checked here, before any thread is created or any run starts,
so a bad request gets one clear 4xx and never a 500 or a half-made thread.
"""

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from app.server.context_policy import client_context
from app.server.errors import RequestError

__all__ = [
    "MAX_JSON_DEPTH",
    "RequestError",
    "RunRequest",
    "check_thread_id",
    "int_field",
    "json_object",
    "metadata_field",
    "parse_run_request",
]

MAX_JSON_DEPTH = 32
MAX_METADATA_CHARS = 16_384
MAX_MESSAGES = 500
_THREAD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_STREAM_MODES = ("values", "updates", "custom", "messages-tuple", "messages", "debug")
_CONFIG_KEYS = frozenset({"recursion_limit", "tags", "configurable"})


def _depth(value: Any, limit: int) -> bool:
    """Return whether `value` nests no deeper than `limit` (iteratively: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            if level > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return True


def json_object(raw: bytes, content_type: str | None) -> dict[str, Any]:
    """Parse a request body that must be a JSON object (an empty body is `{}`).

    Raises:
        RequestError: Wrong content type (415), invalid or too deeply nested JSON (422).
    """
    if not raw.strip():
        return {}
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise RequestError("send the body as JSON with Content-Type: application/json", status=415)
    try:
        body = json.loads(raw)
    except RecursionError:
        raise RequestError(f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise RequestError(f"invalid JSON body: {error}") from error
    if not isinstance(body, dict):
        raise RequestError("the JSON body must be an object")
    if not _depth(body, MAX_JSON_DEPTH):
        raise RequestError(f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels")
    return body


def check_thread_id(value: object) -> str:
    """Return a usable thread id: 1-128 letters, digits, `.`, `_`, `:` or `-`."""
    if not isinstance(value, str) or not _THREAD_ID.fullmatch(value):
        raise RequestError("thread_id must be 1-128 letters, digits, '.', '_', ':' or '-'")
    return value


def int_field(body: dict[str, Any], name: str, *, default: int, low: int, high: int) -> int:
    """Return an integer field within [low, high] (a JSON number or a query-string digit run)."""
    value = body.get(name, default)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RequestError(f"{name} must be an integer from {low} to {high}")
    return value


def metadata_field(body: dict[str, Any], name: str = "metadata") -> dict[str, Any]:
    """Return an optional JSON-object field, bounded in size."""
    value = body.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RequestError(f"{name} must be an object")
    if len(json.dumps(value)) > MAX_METADATA_CHARS:
        raise RequestError(f"{name} is larger than {MAX_METADATA_CHARS} characters")
    return value


@dataclass(frozen=True)
class RunRequest:
    """A checked `POST /threads/{id}/runs/stream` body."""

    input: dict[str, Any] | None
    modes: list[str]
    context: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    subgraphs: bool = False
    create: bool = False


def _modes(requested: object) -> list[str]:
    names = [requested] if isinstance(requested, str) else requested
    if requested is None:
        names = ["values"]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise RequestError("stream_mode must be a name or a list of names")
    unknown = [name for name in names if name not in _STREAM_MODES]
    if unknown:
        raise RequestError(f"unsupported stream_mode {unknown}; use {list(_STREAM_MODES)}")
    return sorted({"messages" if name.startswith("messages") else name for name in names})


def _config(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RequestError("config must be an object")
    unknown = sorted(set(value) - _CONFIG_KEYS)
    if unknown:
        raise RequestError(f"config may set only {sorted(_CONFIG_KEYS)}, not {unknown}")
    config: dict[str, Any] = {}
    if "recursion_limit" in value:
        config["recursion_limit"] = int_field(value, "recursion_limit", default=25, low=1, high=200)
    tags = value.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) and len(t) <= 64 for t in tags):
        raise RequestError("config.tags must be a list of short strings")
    if tags:
        config["tags"] = tags[:16]
    configurable = value.get("configurable") or {}
    if not isinstance(configurable, dict) or set(configurable) - {"thread_id"}:
        raise RequestError("config.configurable may hold only thread_id (from the URL)")
    return config


def _question_length(text: object, max_chars: int) -> None:
    if isinstance(text, str) and len(text) > max_chars:
        raise RequestError(f"the question has {len(text)} characters; the limit is {max_chars}")


def _input(value: object, max_question_chars: int) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RequestError("input must be an object or null")
    _question_length(value.get("question"), max_question_chars)
    messages = value.get("messages")
    if messages is not None:
        if not isinstance(messages, list) or len(messages) > MAX_MESSAGES:
            raise RequestError(f"input.messages must be a list of at most {MAX_MESSAGES}")
        for message in messages[-1:]:
            content = message.get("content") if isinstance(message, dict) else message
            _question_length(content, max_question_chars)
    return value


def parse_run_request(body: dict[str, Any], *, max_question_chars: int) -> RunRequest:
    """Check a whole run request; raise RequestError (422) on the first problem."""
    if_not_exists = body.get("if_not_exists")
    if if_not_exists not in (None, "create", "reject"):
        raise RequestError("if_not_exists must be 'create' or 'reject'")
    return RunRequest(
        input=_input(body.get("input"), max_question_chars),
        modes=_modes(body.get("stream_mode")),
        context=client_context(body.get("context")),
        config=_config(body.get("config")),
        metadata=metadata_field(body),
        subgraphs=bool(body.get("stream_subgraphs")),
        create=if_not_exists == "create",
    )
