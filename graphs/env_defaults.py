"""Server-side `Context` defaults from the environment, for servers whose clients may not set them.

The model of each role and the Chroma store are the server's settings: a run's `context`
may not name them (`app/server/context_policy.py`). `acrag serve` and the CLI pass them as
`Context` fields; the stock LangGraph server (the cluster, `langgraph dev`) builds each run's
`Context` from the run's own `context` only, so a deployment sets them once, in the workers'
environment, and they become the `Context` defaults of that process:

- `ACRAG_MODEL`: one model spec for every role, the way `acrag ask --model` takes it (the
  default reader brings its helper for rewriting and judging; any other spec serves all roles),
  e.g. `openai:acrag-reader` with `ACRAG_LLM_BASE_URL` naming a shared model server;
- `ACRAG_GENERATOR_MODEL`, `ACRAG_FOLLOW_UP_MODEL`, `ACRAG_REWRITER_MODEL`,
  `ACRAG_JUDGE_MODEL`: one role each (they beat `ACRAG_MODEL`);
- `ACRAG_CHROMA_URL`, `ACRAG_COLLECTION`: the Chroma server and collection of the index.

The data directory already comes from `$ACRAG_HOME`. A value a caller passes in `Context(...)`
always beats these defaults. They are read once, when `graphs.context` is imported (a server
process reads its environment at start), and a bad model spec stops that import with an
error naming the variable.
"""

import os
from collections.abc import Mapping

from graphs.validation import InvalidContextError
from models.defaults import DEFAULT_MODEL, role_models

__all__ = ["ENV_FIELDS", "MODEL_ENV", "env_defaults"]

MODEL_ENV = "ACRAG_MODEL"
"""One spec for every role; the per-role variables below beat it."""

ENV_FIELDS = {
    "generator_model": "ACRAG_GENERATOR_MODEL",
    "follow_up_model": "ACRAG_FOLLOW_UP_MODEL",
    "rewriter_model": "ACRAG_REWRITER_MODEL",
    "judge_model": "ACRAG_JUDGE_MODEL",
    "chroma_url": "ACRAG_CHROMA_URL",
    "collection": "ACRAG_COLLECTION",
}
"""The `Context` fields a deployment sets in the environment, and their variables."""

_BUILT_IN: dict[str, str | None] = {
    **role_models(DEFAULT_MODEL),
    "chroma_url": None,
    "collection": "documents",
}
_MODEL_FIELDS = ("generator_model", "follow_up_model", "rewriter_model", "judge_model")


def _check_spec(variable: str, spec: str) -> str:
    from models.chat import parse_spec  # only when a variable is set: it imports LangChain
    from models.errors import ModelSpecError

    try:
        parse_spec(spec)
    except ModelSpecError as error:
        raise InvalidContextError(f"${variable}: {error}") from error
    return spec


def _read(environ: Mapping[str, str], variable: str) -> str | None:
    value = environ.get(variable, "").strip()
    return value or None  # an empty variable counts as unset


def env_defaults(environ: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """Return the defaults of the `ENV_FIELDS` fields: the environment's, else the built-in ones.

    Raises:
        InvalidContextError: A variable holds a model spec that `load_chat_model` would refuse.
    """
    env = os.environ if environ is None else environ
    defaults = dict(_BUILT_IN)
    if shared := _read(env, MODEL_ENV):
        defaults |= role_models(_check_spec(MODEL_ENV, shared))
    for name, variable in ENV_FIELDS.items():
        if (value := _read(env, variable)) is not None:
            defaults[name] = _check_spec(variable, value) if name in _MODEL_FIELDS else value
    return defaults
