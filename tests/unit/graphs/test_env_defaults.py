"""Server-side Context defaults read from the environment (`graphs/env_defaults.py`)."""

import os
import subprocess
import sys

import pytest

from graphs.context import Context
from graphs.env_defaults import env_defaults
from graphs.validation import InvalidContextError
from models.defaults import DEFAULT_MODEL, HELPER_MODEL


def test_without_variables_the_built_in_defaults_hold():
    assert env_defaults({}) == {
        "generator_model": DEFAULT_MODEL,
        "follow_up_model": DEFAULT_MODEL,
        "rewriter_model": HELPER_MODEL,
        "judge_model": HELPER_MODEL,
        "chroma_url": None,
        "collection": "documents",
    }


def test_one_shared_model_serves_every_role():
    defaults = env_defaults({"ACRAG_MODEL": "openai:acrag-reader"})
    roles = [defaults[k] for k in ("generator_model", "follow_up_model", "rewriter_model")]
    assert roles + [defaults["judge_model"]] == ["openai:acrag-reader"] * 4


def test_the_default_reader_keeps_its_helper_as_with_acrag_ask_model():
    defaults = env_defaults({"ACRAG_MODEL": DEFAULT_MODEL})
    assert (defaults["generator_model"], defaults["judge_model"]) == (DEFAULT_MODEL, HELPER_MODEL)


def test_a_role_variable_beats_the_shared_model():
    defaults = env_defaults(
        {"ACRAG_MODEL": "openai:big", "ACRAG_REWRITER_MODEL": "smollm2", "ACRAG_JUDGE_MODEL": " "}
    )
    assert defaults["generator_model"] == "openai:big"
    assert defaults["rewriter_model"] == "smollm2"
    assert defaults["judge_model"] == "openai:big"  # an empty variable counts as unset


def test_the_store_comes_from_the_environment():
    defaults = env_defaults(
        {"ACRAG_CHROMA_URL": "http://chroma.internal:8000", "ACRAG_COLLECTION": "manuals"}
    )
    assert (defaults["chroma_url"], defaults["collection"]) == (
        "http://chroma.internal:8000",
        "manuals",
    )


@pytest.mark.parametrize(
    "variable", ["ACRAG_MODEL", "ACRAG_GENERATOR_MODEL", "ACRAG_FOLLOW_UP_MODEL"]
)
def test_a_bad_spec_names_its_variable(variable):
    with pytest.raises(InvalidContextError, match=rf"\${variable}: unknown model spec"):
        env_defaults({variable: "no-such-model"})


def test_a_run_value_beats_the_environment_default():
    context = Context.from_settings({"generator_model": "smollm2", "chroma_url": None})
    assert (context.generator_model, context.chroma_url) == ("smollm2", None)


def _context_in_a_process(env: dict[str, str]) -> str:
    code = (
        "from graphs.context import Context; c = Context(top_k=2); "
        "print(c.generator_model, c.rewriter_model, c.chroma_url, c.top_k)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or done.stderr.strip().splitlines()[-1]


def test_a_process_started_with_the_variables_builds_every_context_with_them():
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACRAG_")}
    env |= {"ACRAG_MODEL": "openai:reader", "ACRAG_CHROMA_URL": "http://c:1"}
    assert _context_in_a_process(env) == "openai:reader openai:reader http://c:1 2"
    env["ACRAG_MODEL"] = "nonsense"
    assert "$ACRAG_MODEL: unknown model spec 'nonsense'" in _context_in_a_process(env)
