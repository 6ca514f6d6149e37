"""A LangChain chat model over llama.cpp running in-process through `xllamacpp`.

The native engine (one per model file and process, one request at a time) lives in
`models.llamacpp_engine`; the wrapper-side stop guard in `models.stop_guard`.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field

from models.errors import PromptError
from models.llamacpp_engine import LlamaCppEngine, LlamaCppError, NativeServer, engine_for
from models.stop_guard import StopGuard
from models.structured import StructuredOutputMixin

__all__ = [
    "ChatLlamaCpp",
    "LlamaCppEngine",
    "LlamaCppError",
    "NativeServer",
    "StopGuard",
    "engine_for",
]

_ROLES = {"system": "system", "human": "user", "ai": "assistant"}
_TIMING_KEYS = ("prompt_n", "prompt_ms", "predicted_n", "predicted_ms", "cache_n")
"""What `response_metadata["timings"]` keeps of llama.cpp's timings: prompt tokens evaluated
and their milliseconds, tokens generated and theirs, prompt tokens reused from the KV cache."""


def _text(message: BaseMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    parts = [part if isinstance(part, str) else part.get("text", "") for part in message.content]
    return "".join(parts)


def _timings(response: dict[str, Any]) -> dict[str, Any] | None:
    """Return llama.cpp's timings of a response (tokens and milliseconds), if it has them."""
    timings = response.get("timings")
    if not isinstance(timings, dict):
        return None
    return {key: timings[key] for key in _TIMING_KEYS if key in timings} or None


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
    prompt_cache: bool = True
    """Reuse the previous prompt's KV cache; False gives each call a cold start, for fair timing."""
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
        if not self.prompt_cache:  # llama.cpp reuses the cached prefix unless told not to
            request["cache_prompt"] = False
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
            "timings": _timings(response),
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
        finish_reason, timings = None, None
        for chunk in self._engine().stream(request):
            choices = chunk.get("choices") or [{}]
            finish_reason = choices[0].get("finish_reason") or finish_reason
            timings = _timings(chunk) or timings  # llama.cpp sends them with the last chunk
            piece = guard.feed((choices[0].get("delta") or {}).get("content") or "")
            logprobs = choices[0].get("logprobs")
            if piece or logprobs:
                yield self._chunk(piece, run_manager, logprobs=logprobs)
        tail = guard.flush()
        final = {"finish_reason": "stop" if guard.stopped else finish_reason, "timings": timings}
        yield self._chunk(tail, run_manager, **final)

    def _chunk(
        self, text: str, run_manager: CallbackManagerForLLMRun | None, **metadata: Any
    ) -> ChatGenerationChunk:
        present = {key: value for key, value in metadata.items() if value is not None}
        chunk = ChatGenerationChunk(message=AIMessageChunk(content=text, response_metadata=present))
        if run_manager and text:
            run_manager.on_llm_new_token(text, chunk=chunk)
        return chunk
