"""The native side of local chat: one llama.cpp server per model file, one request at a time.

`xllamacpp.Server` runs llama.cpp in-process; its context is not safe to share between
threads, so `LlamaCppEngine` serialises requests with a lock and streams a request's chunks
from a worker thread through a queue (the consumer may stop reading: generation stops too).
"""

import queue
import threading
from collections.abc import Iterator
from functools import cache
from typing import Any, Protocol

from models.errors import ModelFileError, PromptError

__all__ = ["LlamaCppEngine", "LlamaCppError", "NativeServer", "engine_for"]


class LlamaCppError(RuntimeError):
    """llama.cpp refused or failed a request."""


class NativeServer(Protocol):
    """What acrag uses of `xllamacpp.Server` (fakes in tests implement the same)."""

    def handle_chat_completions(self, request: dict[str, Any], *callback: Any) -> Any:
        """Answer an OpenAI-style chat request; with a callback, stream chunks into it."""


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error


_DONE = object()


def _checked(response: Any) -> dict[str, Any]:
    if not isinstance(response, dict):
        raise LlamaCppError(f"llama.cpp returned {type(response).__name__}, not a JSON object")
    error = response.get("error")
    if error is None:
        return response
    if isinstance(error, dict) and error.get("type") == "exceed_context_size_error":
        raise PromptError(
            f"the prompt has {error.get('n_prompt_tokens')} tokens but the model's context "
            f"holds {error.get('n_ctx')}; shorten it or raise n_ctx"
        )
    message = error.get("message", error) if isinstance(error, dict) else error
    raise LlamaCppError(f"llama.cpp refused the request: {message}")


class LlamaCppEngine:
    """One native llama.cpp server; requests run strictly one at a time."""

    def __init__(self, server: NativeServer) -> None:
        self._server = server
        self._lock = threading.Lock()

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        """Run a request to completion and return the response object."""
        with self._lock:
            response = self._server.handle_chat_completions({**request, "stream": False})
        return _checked(response)

    def stream(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Yield the response chunks of a request as the model produces them."""
        chunks: queue.Queue[Any] = queue.Queue()
        abandoned = threading.Event()

        def deliver(chunk: Any) -> bool:
            chunks.put(chunk)
            return abandoned.is_set()  # True tells llama.cpp to stop generating

        def work() -> None:
            try:
                with self._lock:
                    self._server.handle_chat_completions({**request, "stream": True}, deliver)
            except BaseException as error:  # handed to the consumer, re-raised there
                chunks.put(_Failure(error))
            finally:
                chunks.put(_DONE)

        threading.Thread(target=work, name="llamacpp-stream", daemon=True).start()
        try:
            while (item := chunks.get()) is not _DONE:
                if isinstance(item, _Failure):
                    raise item.error
                yield _checked(item)
        finally:  # the consumer stopped reading (a cancelled run): free the engine at once
            abandoned.set()


@cache
def engine_for(path: str, *, n_ctx: int, n_threads: int) -> LlamaCppEngine:
    """Return the process-wide engine for a GGUF file, loading it on first use."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.warmup = False
    params.verbosity = -1
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as error:
        raise ModelFileError(
            f"llama.cpp could not load {path}: is it a valid GGUF model?"
        ) from error
    return LlamaCppEngine(server)
