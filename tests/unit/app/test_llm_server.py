"""The shared model server's settings (`app/server/llm_server.py`), without loading a model."""

from types import SimpleNamespace

import pytest

from app.server.llm_server import _parser, apply, model_file, server_params
from models.errors import ModelSpecError


def test_defaults_bind_loopback_and_split_the_context_between_slots():
    args = _parser().parse_args(["--parallel", "3", "--ctx", "2048"])
    settings = server_params(args, path="/m.gguf", api_key=None)
    assert settings["hostnames"] == ["127.0.0.1"] and settings["port"] == 8300
    assert (settings["n_parallel"], settings["n_ctx"]) == (3, 6144)
    assert settings["model_alias"] == {"acrag-reader"} and settings["model.path"] == "/m.gguf"
    assert settings["api_keys"] == [] and settings["ui"] is False


def test_the_key_is_required_when_given():
    args = _parser().parse_args([])
    assert server_params(args, path="/m.gguf", api_key="secret")["api_keys"] == ["secret"]


def test_apply_sets_nested_settings():
    params = SimpleNamespace(port=0, model=SimpleNamespace(path=""))
    apply(params, {"port": 9, "model.path": "/x.gguf"})
    assert (params.port, params.model.path) == (9, "/x.gguf")


def test_the_shipped_small_model_resolves_to_its_file():
    assert model_file("smollm2").endswith(".gguf")


@pytest.mark.parametrize(
    ("spec", "message"),
    [("openai:gpt-4o-mini", "remote model"), ("nonsense", "unknown model spec")],
)
def test_a_remote_or_unknown_spec_is_refused(spec, message):
    with pytest.raises(ModelSpecError, match=message):
        model_file(spec)


def test_a_missing_gguf_file_is_refused(tmp_path):
    with pytest.raises(Exception, match="no-such.gguf"):
        model_file(f"gguf:{tmp_path / 'no-such.gguf'}")
