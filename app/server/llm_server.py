"""`make serve-llm`: one OpenAI-compatible model server that every worker shares.

llama.cpp's own HTTP server (`llama-server`: `/v1/chat/completions` with streaming, log-probs
and JSON-schema output, `/health`, `/metrics`), run by `xllamacpp`, the same package and the
same GGUF files the in-process reader uses: nothing new to install, nothing downloaded. It
serves one model under one name (`--alias`) with `--parallel` slots, so runs from several
workers are decoded together (continuous batching) instead of each worker loading its own
copy. Workers reach it with `ACRAG_LLM_BASE_URL=http://127.0.0.1:PORT/v1` and
`ACRAG_MODEL=openai:ALIAS` (`graphs/env_defaults.py`).

Binds 127.0.0.1 unless `--host` says otherwise. With `$ACRAG_LLM_API_KEY` set, every request
needs it as a bearer token (workers send it as `OPENAI_API_KEY`); `make serve-cluster
LLM_SERVER=1` always sets a random one. The built-in web UI is off.
"""

import argparse
import logging
import os
import signal
import sys
import threading
from typing import Any

__all__ = ["API_KEY_ENV", "DEFAULT_ALIAS", "DEFAULT_PORT", "main", "model_file", "server_params"]

logger = logging.getLogger(__name__)

API_KEY_ENV = "ACRAG_LLM_API_KEY"
DEFAULT_PORT = 8300
DEFAULT_ALIAS = "acrag-reader"


def model_file(spec: str) -> str:
    """Return the GGUF file of a local model spec (`qwen2.5-coder-1.5b`, `smollm2`, `gguf:PATH`).

    Raises:
        ModelSpecError: A bad spec, or a remote one (this server runs local files only).
    """
    from models.chat import parse_spec
    from models.errors import ModelSpecError
    from models.files import cache_dir, check_gguf, qwen15_path, qwen_path, smollm2_path

    parsed = parse_spec(spec)
    match parsed.kind:
        case "local":
            return str(smollm2_path())
        case "qwen":
            return str(qwen_path(cache_dir()))
        case "qwen15":
            return str(qwen15_path(cache_dir()))
        case "gguf":
            return str(check_gguf(parsed.target))
    raise ModelSpecError(f"{spec!r} is a remote model; the model server runs a local GGUF file")


def server_params(args: argparse.Namespace, *, path: str, api_key: str | None) -> dict[str, Any]:
    """Return the llama.cpp server settings for the command line (see `apply`)."""
    return {
        "model.path": path,
        "model_alias": {args.alias},
        "hostnames": [args.host],
        "port": args.port,
        "n_parallel": args.parallel,
        "n_ctx": args.ctx * args.parallel,  # the context is split between the slots
        "cpuparams.n_threads": args.threads,
        "cpuparams_batch.n_threads": args.threads,
        "api_keys": [api_key] if api_key else [],
        "endpoint_metrics": True,
        "ui": False,
        "warmup": False,
    }


def apply(params: Any, settings: dict[str, Any]) -> Any:
    """Set `settings` (dotted names for nested ones) on an `xllamacpp.CommonParams`."""
    for dotted, value in settings.items():
        *parents, name = dotted.split(".")
        target = params
        for parent in parents:
            target = getattr(target, parent)
        setattr(target, name, value)
    return params


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app.server.llm_server", description=__doc__)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="local model spec")
    parser.add_argument("--alias", default=DEFAULT_ALIAS, help="the model's name in the API")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--parallel", type=int, default=4, help="requests decoded at once")
    parser.add_argument("--ctx", type=int, default=4096, help="context tokens per request")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGTERM or Ctrl-C."""
    import xllamacpp

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args = _parser().parse_args(argv)
    api_key = os.environ.get(API_KEY_ENV) or None
    if api_key is None:
        logger.warning("no $%s: any local process can use the model server", API_KEY_ENV)
    settings = server_params(args, path=model_file(args.model), api_key=api_key)
    params = apply(xllamacpp.CommonParams(), settings)
    server = xllamacpp.Server(params)  # loads the model, then listens
    address = server.listening_address
    logger.info("model server: %s/v1 serving %s as %r", address, args.model, args.alias)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(1):
            pass
    except KeyboardInterrupt:
        pass
    del server  # stops the HTTP server and frees the model
    return 0


if __name__ == "__main__":
    sys.exit(main())
