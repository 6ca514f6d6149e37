"""Stopping a run from outside: cancel, client gone, or over its time limit.

The graph runs in a worker thread, so it cannot be cancelled like a task. Instead every run
carries a `RunControl`; the run loop checks it between chunks, and `StopCallback` checks it
whenever the graph starts a step or a model writes a token, raising `RunStopped` there. A
model call therefore ends at its next token (the local llama.cpp model then stops generating
as its stream is abandoned), and a run stops within one step or token.
"""

import threading
import time
from typing import Any, Literal

from langchain_core.callbacks import BaseCallbackHandler

__all__ = ["RunControl", "RunStopped", "StopCallback", "StopReason"]

StopReason = Literal["cancelled", "disconnected", "timeout"]


class RunStopped(Exception):
    """The run was told to stop; `reason` says why."""

    def __init__(self, reason: StopReason) -> None:
        super().__init__(f"run stopped: {reason}")
        self.reason = reason


class RunControl:
    """A run's stop flag and deadline, shared by the event loop and the worker thread."""

    def __init__(self, *, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._deadline = time.monotonic() + timeout_s
        self._reason: StopReason | None = None
        self._lock = threading.Lock()
        self.finished = threading.Event()
        """Set by the worker once the graph has stopped."""

    def stop(self, reason: StopReason) -> None:
        """Ask the run to stop (the first reason given is kept)."""
        with self._lock:
            if self._reason is None:
                self._reason = reason

    @property
    def reason(self) -> StopReason | None:
        """Return why the run must stop, or None while it may go on."""
        if self._reason is None and time.monotonic() >= self._deadline:
            self.stop("timeout")
        return self._reason

    def stopped_event(self, reason: StopReason) -> dict[str, str]:
        """Return the `error` event that ends a stopped run's stream (LangGraph's names)."""
        if reason == "timeout":
            message = f"the run took longer than {self.timeout_s:g} s and was stopped"
            return {"error": "TimeoutError", "message": message}
        return {"error": "UserInterrupt", "message": f"the run was stopped ({reason})"}

    def check(self) -> None:
        """Raise RunStopped if the run must stop."""
        if (reason := self.reason) is not None:
            raise RunStopped(reason)


class StopCallback(BaseCallbackHandler):
    """Raise `RunStopped` inside the graph as soon as its run is told to stop."""

    raise_error = True
    run_inline = True

    def __init__(self, control: RunControl) -> None:
        self.control = control

    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        """Stop before a node or chain starts."""
        self.control.check()

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        """Stop before a chat model call."""
        self.control.check()

    def on_llm_start(self, *args: Any, **kwargs: Any) -> None:
        """Stop before a completion model call."""
        self.control.check()

    def on_llm_new_token(self, *args: Any, **kwargs: Any) -> None:
        """Stop a model call mid-answer, at its next token."""
        self.control.check()

    def on_retriever_start(self, *args: Any, **kwargs: Any) -> None:
        """Stop before a retrieval."""
        self.control.check()
