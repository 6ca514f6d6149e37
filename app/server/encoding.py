"""JSON and Server-Sent-Events encoding in the LangGraph API's wire format."""

import dataclasses
import json
import re
import uuid
from datetime import date, datetime
from pathlib import Path
from typing import Any

from langgraph.types import StateSnapshot
from pydantic import BaseModel

__all__ = ["dumps", "public_message", "snapshot_json", "sse"]

# An absolute POSIX path (not the path part of a URL): kept to its last component.
_PART = r"[^\s/'\"`:,;()\[\]{}<>]"
_ABSOLUTE_PATH = re.compile(rf"(?<![\w:/.~-])/(?:{_PART}+/)+({_PART}*)")


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if isinstance(value, uuid.UUID | Path):
        return str(value)
    if hasattr(value, "value") and type(value).__name__ == "Overwrite":
        return value.value
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return repr(value)


def dumps(value: Any) -> str:
    """Return compact JSON; messages become the LangGraph API's dicts (`type`, `content`...)."""
    return json.dumps(value, default=_default, ensure_ascii=False, separators=(",", ":"))


def public_message(text: str, *, limit: int = 500) -> str:
    """Return an error message fit for a client: no absolute server paths, bounded length."""
    cleaned = _ABSOLUTE_PATH.sub(lambda match: match.group(1) or ".", text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def sse(event: str, data: Any) -> bytes:
    """Return one SSE frame, `event: <name>` and one `data:` line of JSON."""
    return f"event: {event}\ndata: {dumps(data)}\n\n".encode()


def _checkpoint(config: dict[str, Any] | None) -> dict[str, Any] | None:
    if not config:
        return None
    configurable = config.get("configurable", {})
    keys = ("thread_id", "checkpoint_ns", "checkpoint_id")
    return {key: configurable.get(key) for key in keys}


def snapshot_json(snapshot: StateSnapshot) -> dict[str, Any]:
    """Return a state snapshot shaped like the LangGraph API's `ThreadState`."""
    tasks = [
        {"id": task.id, "name": task.name, "error": None if task.error is None else str(task.error)}
        for task in snapshot.tasks
    ]
    return {
        "values": snapshot.values,
        "next": list(snapshot.next),
        "tasks": tasks,
        "metadata": snapshot.metadata,
        "created_at": snapshot.created_at,
        "checkpoint": _checkpoint(dict(snapshot.config)),
        "parent_checkpoint": _checkpoint(
            dict(snapshot.parent_config) if snapshot.parent_config else None
        ),
        "interrupts": [],
    }
