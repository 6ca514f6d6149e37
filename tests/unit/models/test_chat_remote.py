"""The request body an `openai:` spec sends: it must decode as the local reader does."""

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from graphs.context import Context
from models import chat
from models.chat import load_chat_model
from models.llamacpp import ChatLlamaCpp
from nodes._common import call_model
from nodes.generate import retry_options

httpx = pytest.importorskip("httpx")
pytest.importorskip("langchain_openai")

BASE_URL = "http://127.0.0.1:9/v1"
MESSAGES = [HumanMessage("Which port does the server use?")]
REPLY = {
    "id": "x",
    "object": "chat.completion",
    "created": 0,
    "model": "reader",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "8080."}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11},
}


class Recorder:
    """A fake HTTP transport: keeps every request and answers with one chat completion."""

    def __init__(self) -> None:
        self.requests: list[Any] = []

    def __call__(self, request: Any) -> Any:
        self.requests.append(request)
        return httpx.Response(200, json=REPLY)

    def client(self) -> Any:
        return httpx.Client(transport=httpx.MockTransport(self))

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.requests[-1].content)
        return body


def _sent(spec: str, *, options: dict[str, Any] | None = None, **load: Any) -> Recorder:
    recorder = Recorder()
    model = load_chat_model(spec, http_client=recorder.client(), **load)
    call_model(model, MESSAGES, max_tokens=96, name="generate", **(options or {}))
    return recorder


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(chat.BASE_URL_ENV, BASE_URL)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.usefixtures("served")
def test_a_served_spec_decodes_as_the_local_reader(tmp_path: Path) -> None:
    penalty = Context().repeat_penalty
    recorder = _sent("openai:reader", repeat_penalty=penalty)
    request = recorder.requests[0]
    assert str(request.url) == f"{BASE_URL}/chat/completions"
    body = recorder.body()
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + bytes(16))
    local = load_chat_model(f"gguf:{gguf}", repeat_penalty=penalty)
    assert isinstance(local, ChatLlamaCpp)
    expected = local._request(MESSAGES, None, max_tokens=96)
    assert body["model"] == "reader"
    assert body["temperature"] == expected["temperature"] == 0
    assert body["repeat_penalty"] == expected["repeat_penalty"] == penalty
    assert body["max_completion_tokens"] == expected["max_tokens"] == 96
    assert "cache_prompt" not in body  # llama.cpp's server reuses the prompt cache by default


@pytest.mark.usefixtures("served")
def test_a_role_without_its_own_penalty_gets_the_local_default() -> None:
    recorder = Recorder()
    model = load_chat_model("openai:reader", http_client=recorder.client())
    model.invoke(MESSAGES)  # no token cap from the caller
    body = recorder.body()
    assert body["repeat_penalty"] == ChatLlamaCpp.model_fields["repeat_penalty"].default
    assert body["max_completion_tokens"] == ChatLlamaCpp.model_fields["max_tokens"].default


@pytest.mark.usefixtures("served")
def test_cold_start_and_regeneration_options_reach_the_server() -> None:
    body = _sent("openai:reader", prompt_cache=False, options=retry_options(2)).body()
    assert body["cache_prompt"] is False
    assert (body["temperature"], body["seed"]) == (0.7, 2)
    assert body["repeat_penalty"] == ChatLlamaCpp.model_fields["repeat_penalty"].default


@pytest.mark.usefixtures("served")
def test_the_caller_settings_win_over_the_defaults() -> None:
    recorder = Recorder()
    model = load_chat_model(
        "openai:reader",
        http_client=recorder.client(),
        temperature=0.3,
        extra_body={"repeat_penalty": 1.0, "top_k": 5},
    )
    model.invoke(MESSAGES)
    body = recorder.body()
    assert (body["temperature"], body["repeat_penalty"], body["top_k"]) == (0.3, 1.0, 5)


def test_a_hosted_api_gets_greedy_decoding_but_no_llama_cpp_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(chat.BASE_URL_ENV, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    recorder = _sent("openai:gpt-4o-mini", repeat_penalty=1.15, prompt_cache=False)
    assert recorder.requests[0].url.host == "api.openai.com"
    body = recorder.body()
    assert body["temperature"] == 0
    assert body["max_completion_tokens"] == 96
    assert "repeat_penalty" not in body and "cache_prompt" not in body
