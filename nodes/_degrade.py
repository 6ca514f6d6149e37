"""Bounded retries for nodes whose store or model fails, then a degraded result with a reason.

The graph gives such nodes a LangGraph `RetryPolicy` that retries only `TransientNodeError`
(`NODE_RETRY`). A node calls `retry_or_degrade` when its store or model raises: before the
last attempt that raises `TransientNodeError`, so LangGraph waits and runs the node again; on
the last attempt it returns the reason, and the node carries on without that result and records
a `fallback` event whose `degraded` field `finalize` repeats in the answer.
"""

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

__all__ = ["NODE_ATTEMPTS", "NODE_RETRY", "TransientNodeError", "retry_or_degrade"]

NODE_ATTEMPTS = 3
"""Attempts a node gets when its store or model fails."""


class TransientNodeError(RuntimeError):
    """A store or model failure worth another attempt of the whole node."""


NODE_RETRY = RetryPolicy(
    max_attempts=NODE_ATTEMPTS,
    initial_interval=0.1,
    backoff_factor=2.0,
    max_interval=2.0,
    retry_on=TransientNodeError,
)


def retry_or_degrade(
    runtime: Runtime[Any], error: Exception, what: str, *, retry: bool = True
) -> str:
    """Raise `TransientNodeError` unless this is the node's last attempt; else return why.

    A runtime without execution info (a node called directly, outside a graph) degrades at
    once, and so does `retry=False` (the same failure was already retried in this run).
    """
    reason = f"{what} failed: {type(error).__name__}: {error}"[:300]
    info = runtime.execution_info
    if retry and info is not None and info.node_attempt < NODE_ATTEMPTS:
        raise TransientNodeError(reason) from error
    return reason
