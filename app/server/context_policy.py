"""Which `Context` fields a client may set on a run, and within which bounds.

A run's `context` comes from whoever can reach the server, so only retrieval and answer
options pass, each checked against a small range. Data locations (`home`, `chroma_url`,
`collection`), model specs, judge choices and input limits come only from the server's own
configuration: a client that tries to set them gets a 422 naming the field.
"""

import math
from dataclasses import dataclass
from typing import Any

from app.server.errors import RequestError
from graphs.context import Context
from graphs.validation import InvalidContextError

__all__ = ["CLIENT_FIELDS", "client_context"]


@dataclass(frozen=True)
class _Choice:
    values: tuple[Any, ...]

    def check(self, name: str, value: object) -> Any:
        if isinstance(value, bool) != isinstance(self.values[0], bool) or value not in self.values:
            raise ValueError(f"{name} must be one of {list(self.values)}")
        return value


@dataclass(frozen=True)
class _Int:
    low: int
    high: int

    def check(self, name: str, value: object) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an integer from {self.low} to {self.high}")
        if not self.low <= value <= self.high:
            raise ValueError(f"{name} must be an integer from {self.low} to {self.high}")
        return value


@dataclass(frozen=True)
class _Float:
    low: float
    high: float
    nullable: bool = False

    def check(self, name: str, value: object) -> Any:
        if value is None and self.nullable:
            return None
        number = float(value) if isinstance(value, int | float) else math.nan
        if isinstance(value, bool) or not self.low <= number <= self.high:  # NaN fails too
            raise ValueError(f"{name} must be a number from {self.low:g} to {self.high:g}")
        return number


_BOOL = _Choice((True, False))

CLIENT_FIELDS: dict[str, _Choice | _Int | _Float] = {
    "route": _Choice(Context.choices("route")),
    "answer_style": _Choice(Context.choices("answer_style")),
    "reflect": _BOOL,
    "condense_history": _BOOL,
    "web_backend": _Choice(("auto", "none")),
    "retrieval_mode": _Choice(Context.choices("retrieval_mode")),
    "top_k": _Int(1, 10),
    "web_k": _Int(1, 10),
    "strips_top_k": _Int(1, 10),
    "candidates": _Int(1, 4),
    "max_retries": _Int(0, 2),
    "retry_action": _Choice(Context.choices("retry_action")),
    "ircot_max_steps": _Int(1, 8),
    "max_answer_tokens": _Int(16, 256),
    "upper_threshold": _Float(-1.0, 1.0, nullable=True),
    "lower_threshold": _Float(-1.0, 1.0, nullable=True),
    "strip_threshold": _Float(-1.0, 1.0, nullable=True),
}
"""The only fields a run's `context` may set, each with its allowed values (a `Literal`
field's choices are read from `Context`; `web_backend` is narrowed to what needs no key)."""

_SERVER_FIELDS = frozenset(Context.__dataclass_fields__) - set(CLIENT_FIELDS)


def _check(name: str, value: object) -> Any:
    if name in _SERVER_FIELDS:
        raise ValueError(
            f"context.{name} is set by the server's configuration, not per run; "
            f"a run may set {sorted(CLIENT_FIELDS)}"
        )
    if name not in CLIENT_FIELDS:
        raise ValueError(f"unknown context field {name!r}; a run may set {sorted(CLIENT_FIELDS)}")
    return CLIENT_FIELDS[name].check(f"context.{name}", value)


def client_context(value: object) -> dict[str, Any]:
    """Return the run options a client asked for, checked; raise ValueError on anything else."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RequestError("context must be an object")
    try:
        checked = {str(name): _check(str(name), item) for name, item in value.items()}
    except ValueError as error:
        raise RequestError(str(error)) from error
    lower, upper = checked.get("lower_threshold"), checked.get("upper_threshold")
    if lower is not None and upper is not None and lower > upper:
        raise RequestError("context.lower_threshold must not exceed context.upper_threshold")
    try:
        Context.from_settings(checked)  # the same checks as the CLI's and the benchmark's
    except InvalidContextError as error:
        raise RequestError(f"context: {error}") from error
    return checked
