from pathlib import Path

import pytest

from graphs.context import DEFAULT_MODEL, Context
from models import chat
from models.chat import ModelSpec, load_chat_model, parse_spec
from models.defaults import HELPER_MODEL, role_models
from models.errors import ModelFileError, ModelSpecError
from models.llamacpp import ChatLlamaCpp


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("local", ModelSpec("local")),
        ("", ModelSpec("local")),
        ("smollm2", ModelSpec("local")),
        ("qwen2.5-coder-0.5b", ModelSpec("qwen")),
        (" qwen ", ModelSpec("qwen")),
        ("gguf:/models/x.gguf", ModelSpec("gguf", target="/models/x.gguf")),
        ("openai:gpt-4o-mini", ModelSpec("remote", target="gpt-4o-mini", provider="openai")),
        ("ollama/llama3.2", ModelSpec("remote", target="llama3.2", provider="ollama")),
        ("OpenAI:gpt-4o", ModelSpec("remote", target="gpt-4o", provider="openai")),
    ],
)
def test_parse_spec_forms(spec: str, expected: ModelSpec) -> None:
    assert parse_spec(spec) == expected


@pytest.mark.parametrize("spec", ["smollm", "gguf:", ":model", "qwen2"])
def test_unknown_spec_lists_the_valid_forms(spec: str) -> None:
    with pytest.raises(ModelSpecError) as caught:
        parse_spec(spec)
    message = str(caught.value)
    assert repr(spec) in message
    for form in ("smollm2", "local", "gguf:PATH", "qwen2.5-coder-0.5b", "qwen", "PROVIDER:MODEL"):
        assert form in message
    assert "\n" not in message


def test_the_default_reader_is_the_1_5b_with_the_0_5b_as_helper() -> None:
    assert parse_spec(DEFAULT_MODEL) == ModelSpec("qwen15")
    assert parse_spec(HELPER_MODEL) == ModelSpec("qwen")
    context = Context()
    assert context.generator_model == DEFAULT_MODEL
    assert context.rewriter_model == context.judge_model == HELPER_MODEL
    assert context.follow_up_model == DEFAULT_MODEL


def test_the_default_spec_brings_the_helper_and_any_other_spec_serves_every_role() -> None:
    assert role_models(DEFAULT_MODEL) == {
        "generator_model": DEFAULT_MODEL,
        "follow_up_model": DEFAULT_MODEL,
        "rewriter_model": HELPER_MODEL,
        "judge_model": HELPER_MODEL,
    }
    assert set(role_models("smollm2").values()) == {"smollm2"}
    assert set(role_models(HELPER_MODEL).values()) == {HELPER_MODEL}


def test_unknown_provider_is_a_spec_error() -> None:
    with pytest.raises(ModelSpecError, match="valid forms"):
        load_chat_model("no-such-provider:some-model")


def test_remote_spec_goes_to_init_chat_model_with_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def fake_init(model: str, **kwargs: object) -> str:
        calls.append((model, kwargs))
        return "remote-model"

    monkeypatch.setattr("langchain.chat_models.init_chat_model", fake_init)
    monkeypatch.setenv(chat.BASE_URL_ENV, "http://127.0.0.1:8000/v1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert load_chat_model("openai:qwen", temperature=0) == "remote-model"
    model, kwargs = calls[0]
    assert model == "qwen"
    assert kwargs["model_provider"] == "openai"
    assert kwargs["base_url"] == "http://127.0.0.1:8000/v1"
    assert kwargs["temperature"] == 0
    assert kwargs["api_key"]


def test_missing_gguf_file_is_a_file_error(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="no model file"):
        load_chat_model(f"gguf:{tmp_path / 'missing.gguf'}")


def test_corrupt_gguf_file_is_refused_before_loading(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"<html>not a model</html>")
    with pytest.raises(ModelFileError, match="not a GGUF"):
        load_chat_model(f"gguf:{bogus}")


def test_gguf_spec_builds_a_local_chat_model(tmp_path: Path) -> None:
    model_file = tmp_path / "tiny.gguf"
    model_file.write_bytes(b"GGUF" + bytes(16))
    model = load_chat_model(f"gguf:{model_file}", max_tokens=7)
    assert isinstance(model, ChatLlamaCpp)
    assert model.model_path == str(model_file)
    assert model.max_tokens == 7
    penalised = load_chat_model(f"gguf:{model_file}", repeat_penalty=1.3)
    assert isinstance(penalised, ChatLlamaCpp) and penalised.repeat_penalty == 1.3
    assert model.prompt_cache is True
    cold = load_chat_model(f"gguf:{model_file}", prompt_cache=False)
    assert isinstance(cold, ChatLlamaCpp) and cold.prompt_cache is False


def test_llama_cpp_settings_are_not_sent_to_remote_models(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    monkeypatch.setattr(
        "langchain.chat_models.init_chat_model", lambda model, **kw: calls.append(kw) or "remote"
    )
    monkeypatch.delenv(chat.BASE_URL_ENV, raising=False)
    assert load_chat_model("openai:gpt-4o-mini", repeat_penalty=1.3, prompt_cache=False) == "remote"
    assert not {"repeat_penalty", "prompt_cache", "extra_body"} & set(calls[0])
    assert calls[0]["temperature"] == 0  # greedy, as the local reader


def test_only_an_openai_compatible_server_gets_llama_cpp_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []
    monkeypatch.setattr(
        "langchain.chat_models.init_chat_model", lambda model, **kw: calls.append(kw) or "remote"
    )
    monkeypatch.setenv(chat.BASE_URL_ENV, "http://127.0.0.1:8000/v1")
    load_chat_model("openai:reader", repeat_penalty=1.3, prompt_cache=False)
    load_chat_model("ollama:llama3.2", repeat_penalty=1.3)
    assert calls[0]["extra_body"] == {"repeat_penalty": 1.3, "cache_prompt": False}
    assert "extra_body" not in calls[1]


def test_the_larger_reader_has_its_own_spec() -> None:
    from models.chat import parse_spec

    assert parse_spec("qwen2.5-coder-1.5b").kind == "qwen15"
    assert parse_spec("qwen2.5-coder-0.5b").kind == "qwen"
