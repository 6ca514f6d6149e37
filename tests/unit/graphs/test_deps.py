from collections.abc import Iterator
from typing import Any

import pytest

import graphs.deps as deps_module
from graphs.context import Context
from graphs.deps import Deps, make_evaluator
from models.followup_choice import ChoiceRewriter
from models.followup_write import WriteRewriter
from models.judges_llm import LlmEvaluator
from tests.fakes import llamacpp_with


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Record every chat model Deps builds (spec, settings); each is a scripted fake."""
    calls: list[tuple[str, dict[str, Any]]] = []

    def chat_model(spec: str, **settings: Any) -> Any:
        calls.append((spec, settings))
        return llamacpp_with(lambda request: ("{}", None))

    monkeypatch.setattr(deps_module, "_chat_model", chat_model)
    deps_module._judge.cache_clear()
    yield calls
    deps_module._judge.cache_clear()


@pytest.mark.parametrize("prompt_cache", [True, False])
def test_every_model_role_gets_the_context_prompt_cache(built, prompt_cache):
    context = Context(
        generator_model="smollm2",
        rewriter_model="qwen",
        judge_model="smollm2",
        evaluator="llm",
        prompt_cache=prompt_cache,
    )
    Deps().generator_for(context)
    Deps().rewriter_for(context)
    Deps().follow_up_model_for(context)
    assert isinstance(make_evaluator(context), LlmEvaluator)
    assert [settings["prompt_cache"] for _, settings in built] == [prompt_cache] * 4


def test_prompt_cache_is_on_by_default():
    assert Context().prompt_cache is True


def test_the_llm_follow_up_rewriter_uses_the_follow_up_model(built):
    context = Context(follow_up_model="smollm2", rewriter_model="qwen")
    rewriter = Deps().follow_ups_for(context)
    rewriter.model()  # type: ignore[attr-defined]
    assert [spec for spec, _ in built] == ["smollm2"]


def test_the_write_follow_up_rewriter_falls_back_on_the_choice_path(built):
    rewriter = Deps().follow_ups_for(Context(follow_ups="write", follow_up_model="smollm2"))
    assert isinstance(rewriter, WriteRewriter) and isinstance(rewriter.fallback, ChoiceRewriter)
    rewriter.model()
    assert [spec for spec, _ in built] == ["smollm2"]
