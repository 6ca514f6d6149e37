"""`load_chat_model(spec)`: one way to get the chat model for every role."""

import os
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel

from models.errors import ModelSpecError
from models.files import cache_dir, check_gguf, qwen15_path, qwen_path, smollm2_path
from models.llamacpp import ChatLlamaCpp

__all__ = ["BASE_URL_ENV", "VALID_FORMS", "ModelSpec", "load_chat_model", "parse_spec"]

BASE_URL_ENV = "ACRAG_LLM_BASE_URL"
VALID_FORMS = (
    "qwen2.5-coder-0.5b or qwen (Qwen2.5-Coder-0.5B-Instruct: faster, weaker; the default helper)",
    "qwen2.5-coder-1.5b (Qwen2.5-Coder-1.5B-Instruct, the default reader)",
    "smollm2 or local (SmolLM2-135M-Instruct: faster, much weaker)",
    "gguf:PATH (any GGUF file)",
    "PROVIDER:MODEL for LangChain's init_chat_model, e.g. openai:gpt-4o-mini, ollama:llama3.2",
)
_QWEN = "qwen2.5-coder-0.5b"
_QWEN15 = "qwen2.5-coder-1.5b"
_LOCAL_DEFAULTS = {
    name: ChatLlamaCpp.model_fields[name].default for name in ("max_tokens", "repeat_penalty")
}
"""What a local model uses when not told otherwise; a remote one gets the same."""
_COLD = {"cache_prompt": False}


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec."""

    kind: Literal["local", "gguf", "qwen", "qwen15", "remote"]
    target: str = ""
    """The GGUF path for `gguf`, the model name for `remote`."""
    provider: str = ""
    """The LangChain provider for `remote`."""


def _invalid(spec: str, why: str) -> ModelSpecError:
    forms = "; ".join(VALID_FORMS)
    return ModelSpecError(f"unknown model spec {spec!r} ({why}); valid forms: {forms}")


def parse_spec(spec: str) -> ModelSpec:
    """Parse a model spec string, raising ModelSpecError with the valid forms if it is bad."""
    text = spec.strip()
    if text in ("", "local", "smollm2"):
        return ModelSpec("local")
    if text in (_QWEN, "qwen"):
        return ModelSpec("qwen")
    if text == _QWEN15:
        return ModelSpec("qwen15")
    provider, sep, name = text.partition(":")
    if not sep:
        provider, sep, name = text.partition("/")
    if not sep or not provider.strip() or not name.strip():
        raise _invalid(spec, "expected a known name or PREFIX:VALUE")
    if provider == "gguf":
        return ModelSpec("gguf", target=name)
    return ModelSpec("remote", target=name.strip(), provider=provider.strip().lower())


def _remote(
    spec: ModelSpec, original: str, *, repeat_penalty: float, prompt_cache: bool, **kwargs: Any
) -> BaseChatModel:
    """Build a remote model that decodes as the local reader does: greedy, capped tokens.

    Only an OpenAI-compatible server reached through a base URL (ours is llama.cpp's server,
    `app.server.llm_server`) gets llama.cpp's own fields `repeat_penalty` and `cache_prompt`
    in the request body: a hosted API would refuse or ignore fields it does not know.
    """
    from langchain.chat_models import init_chat_model

    kwargs.setdefault("temperature", 0.0)
    kwargs.setdefault("max_tokens", _LOCAL_DEFAULTS["max_tokens"])
    base_url = kwargs.pop("base_url", None) or os.environ.get(BASE_URL_ENV)
    if base_url:
        kwargs["base_url"] = base_url
        if spec.provider == "openai":
            if not os.environ.get("OPENAI_API_KEY"):
                kwargs.setdefault("api_key", "not-needed")  # local OpenAI-compatible servers
            body = {"repeat_penalty": repeat_penalty, **({} if prompt_cache else _COLD)}
            kwargs["extra_body"] = body | kwargs.get("extra_body", {})
    try:
        return init_chat_model(spec.target, model_provider=spec.provider, **kwargs)
    except ImportError as error:
        raise ModelSpecError(
            f"model spec {original!r} needs the LangChain integration for {spec.provider!r}: "
            f"{error}"
        ) from error
    except ValueError as error:
        raise _invalid(original, str(error).splitlines()[0]) from error


def load_chat_model(
    spec: str = "local",
    *,
    repeat_penalty: float | None = None,
    prompt_cache: bool = True,
    **kwargs: Any,
) -> BaseChatModel:
    """Return a LangChain chat model for `spec`.

    Args:
        spec: `local`, `gguf:PATH`, `qwen2.5-coder-0.5b`, or `PROVIDER:MODEL` for LangChain's
            `init_chat_model`; an OpenAI-compatible server is reached with `base_url=` or
            `$ACRAG_LLM_BASE_URL`.
        repeat_penalty: llama.cpp's repetition penalty (tiny models loop without one); None
            means the local model's default. Sent to an OpenAI-compatible server reached by
            base URL (llama.cpp's server takes it); other remote backends do not get it.
        prompt_cache: Let llama.cpp reuse the previous prompt's KV cache; False gives every
            call a cold start, for fair timing. Sent as `cache_prompt` where `repeat_penalty` is.
        **kwargs: Settings for the model (temperature, max_tokens, n_ctx for local models).
            Remote models default to temperature 0 and the local token cap, as the local
            reader decodes.
    """
    parsed = parse_spec(spec)
    if repeat_penalty is not None and parsed.kind != "remote":
        kwargs["repeat_penalty"] = repeat_penalty
    if parsed.kind != "remote":
        kwargs["prompt_cache"] = prompt_cache
    match parsed.kind:
        case "local":
            return ChatLlamaCpp(model_path=str(smollm2_path()), **kwargs)
        case "gguf":
            return ChatLlamaCpp(model_path=str(check_gguf(parsed.target)), **kwargs)
        case "qwen":
            return ChatLlamaCpp(model_path=str(qwen_path(cache_dir())), **kwargs)
        case "qwen15":
            return ChatLlamaCpp(model_path=str(qwen15_path(cache_dir())), **kwargs)
        case "remote":
            penalty = repeat_penalty or _LOCAL_DEFAULTS["repeat_penalty"]
            return _remote(
                parsed, spec, repeat_penalty=penalty, prompt_cache=prompt_cache, **kwargs
            )
    raise AssertionError(parsed.kind)
