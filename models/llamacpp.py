"""A LangChain chat model over llama.cpp running in-process through `xllamacpp`.

One native model instance exists per model file and process (`engine_for`), and it serves one
request at a time: llama.cpp's context is not safe to share between threads.
"""

import queue
import threading
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field

from models.errors import ModelFileError, PromptError
from models.structured import StructuredOutputMixin

__all__ = ["ChatLlamaCpp", "LlamaCppEngine", "LlamaCppError", "NativeServer", "engine_for"]

_ROLES = {"system": "system", "human": "user", "ai": "assistant"}


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


class StopGuard:
    """Cut streamed text at the first stop sequence, holding back partial matches."""

    def __init__(self, stops: list[str]) -> None:
        self.stops = [stop for stop in stops if stop]
        self.buffer = ""
        self.stopped = False

    def feed(self, text: str) -> str:
        """Add streamed text; return the part that is certainly before any stop sequence."""
        if self.stopped:
            return ""
        self.buffer += text
        cuts = [i for i in (self.buffer.find(stop) for stop in self.stops) if i >= 0]
        if cuts:
            self.stopped = True
            released, self.buffer = self.buffer[: min(cuts)], ""
            return released
        hold = max((self._overlap(stop) for stop in self.stops), default=0)
        released = self.buffer[: len(self.buffer) - hold]
        self.buffer = self.buffer[len(released) :]
        return released

    def flush(self) -> str:
        """Return what is still held back once the stream has ended."""
        released, self.buffer = ("" if self.stopped else self.buffer), ""
        return released

    def _overlap(self, stop: str) -> int:
        for size in range(min(len(stop) - 1, len(self.buffer)), 0, -1):
            if self.buffer.endswith(stop[:size]):
                return size
        return 0


def _text(message: BaseMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    parts = [part if isinstance(part, str) else part.get("text", "") for part in message.content]
    return "".join(parts)


def _usage(usage: dict[str, Any] | None) -> UsageMetadata | None:
    if not usage:
        return None
    return {
        "input_tokens": usage.get("prompt_tokens", 0),
        "output_tokens": usage.get("completion_tokens", 0),
        "total_tokens": usage.get("total_tokens", 0),
    }


class ChatLlamaCpp(StructuredOutputMixin, BaseChatModel):
    """Chat with a GGUF model run in-process by llama.cpp.

    Supports invoke, token streaming, batch, stop sequences, temperature, max tokens,
    JSON-schema constrained output (`with_structured_output`) and token log-probabilities
    (`logprobs=True`, returned in `response_metadata["logprobs"]`).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_path: str
    """The GGUF file."""
    n_ctx: int = 4096
    """Context window in tokens (prompt plus answer)."""
    n_threads: int = 2
    """CPU threads for llama.cpp."""
    temperature: float = 0.0
    max_tokens: int = 256
    top_p: float | None = None
    repeat_penalty: float | None = 1.1
    """Penalty on repeated tokens; small models loop without it."""
    seed: int | None = 0
    stop: list[str] | None = None
    logprobs: bool = False
    """Return the log-probability of every generated token."""
    top_logprobs: int | None = None
    engine: LlamaCppEngine | None = Field(default=None, exclude=True)
    """An engine to use instead of the shared one for `model_path` (tests pass fakes)."""

    @property
    def _llm_type(self) -> str:
        return "llamacpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": Path(self.model_path).name, "n_ctx": self.n_ctx}

    def _engine(self) -> LlamaCppEngine:
        if self.engine is not None:
            return self.engine
        return engine_for(self.model_path, n_ctx=self.n_ctx, n_threads=self.n_threads)

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> dict[str, Any]:
        converted = [
            {"role": _ROLES.get(message.type, "user"), "content": _text(message)}
            for message in messages
        ]
        if not any(entry["content"].strip() for entry in converted):
            raise PromptError("the prompt is empty")
        request: dict[str, Any] = {
            "messages": converted,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "top_p": self.top_p,
            "repeat_penalty": self.repeat_penalty,
            "stop": stop if stop is not None else self.stop,
            "logprobs": self.logprobs or None,
            "top_logprobs": self.top_logprobs,
        }
        request.update(kwargs)
        return {key: value for key, value in request.items() if value is not None}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        request = self._request(messages, stop, **kwargs)
        response = self._engine().complete(request)
        choice = response["choices"][0]
        guard = StopGuard(request.get("stop", []))
        text = guard.feed(choice["message"].get("content") or "") + guard.flush()
        metadata = {
            "finish_reason": "stop" if guard.stopped else choice.get("finish_reason"),
            "model_name": Path(self.model_path).name,
            "logprobs": choice.get("logprobs"),
        }
        message = AIMessage(
            content=text,
            response_metadata={k: v for k, v in metadata.items() if v is not None},
            usage_metadata=_usage(response.get("usage")),
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        request = self._request(messages, stop, **kwargs)
        guard = StopGuard(request.get("stop", []))
        finish_reason = None
        for chunk in self._engine().stream(request):
            choices = chunk.get("choices") or [{}]
            finish_reason = choices[0].get("finish_reason") or finish_reason
            piece = guard.feed((choices[0].get("delta") or {}).get("content") or "")
            logprobs = choices[0].get("logprobs")
            if piece or logprobs:
                yield self._chunk(piece, run_manager, logprobs=logprobs)
        tail = guard.flush()
        final = {"finish_reason": "stop" if guard.stopped else finish_reason}
        yield self._chunk(tail, run_manager, **final)

    def _chunk(
        self, text: str, run_manager: CallbackManagerForLLMRun | None, **metadata: Any
    ) -> ChatGenerationChunk:
        present = {key: value for key, value in metadata.items() if value is not None}
        chunk = ChatGenerationChunk(message=AIMessageChunk(content=text, response_metadata=present))
        if run_manager and text:
            run_manager.on_llm_new_token(text, chunk=chunk)
        return chunk
