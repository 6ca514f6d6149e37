"""`acrag serve`: the chat page and a LangGraph-compatible run API, threads kept across restarts."""

import argparse
import ipaddress
import logging
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from models.errors import UserError
from stores.checkpoint import CHECKPOINT_URL_ENV
from stores.home import acrag_home

__all__ = ["DEFAULT_PORT", "add_parser", "build_service", "run"]

logger = logging.getLogger(__name__)

DEFAULT_PORT = 8123


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `serve` subcommand."""
    parser = subparsers.add_parser("serve", help="serve the chat page and the run API")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    parser.add_argument(
        "--token",
        default=os.environ.get("ACRAG_SERVE_TOKEN"),
        help="require this bearer token on the API (default: $ACRAG_SERVE_TOKEN)",
    )
    parser.add_argument(
        "--checkpoint-url",
        default=os.environ.get(CHECKPOINT_URL_ENV),
        help=f"postgresql://... to keep threads in PostgreSQL (default: ${CHECKPOINT_URL_ENV}, "
        "else SQLite in the data directory)",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="serve a model-free demo graph (instant start; for trying the page)",
    )
    parser.set_defaults(handler=run)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def build_service(checkpointer: Any, *, home: Path, demo: bool) -> Any:
    """Compile the graph (or the demo graph) with the checkpointer and wrap it for serving."""
    from app.server.runs import GraphService
    from app.server.threads import ThreadRegistry

    graph: Any
    if demo:
        from app.server.demo_graph import build_demo_graph

        graph = build_demo_graph(checkpointer=checkpointer.saver, home=home)
        context: dict[str, Any] = {}
    else:
        from graphs import build_graph

        graph = build_graph(checkpointer=checkpointer.saver)
        context = {"home": str(home)}
    return GraphService(graph, ThreadRegistry(checkpointer), default_context=context)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    import uvicorn

    from app.server.asgi import create_app
    from stores.checkpoint import open_checkpointer

    if not _is_loopback(args.host) and not args.token:
        logger.warning(
            "serving on %s without a token: anyone who can reach it can use it", args.host
        )
    home = acrag_home(args.home)
    with ExitStack() as stack:
        try:
            checkpointer = stack.enter_context(open_checkpointer(args.checkpoint_url, home=home))
        except Exception as error:  # noqa: BLE001 - any driver error becomes one clear line
            raise UserError(f"cannot open the thread store: {error}") from error
        service = build_service(checkpointer, home=home, demo=args.demo)
        app = create_app(service=service, home=home, token=args.token)
        fragment = f"#token={args.token}" if args.token else ""
        sys.stdout.write(f"acrag: chat page at http://{args.host}:{args.port}/ui/{fragment}\n")
        sys.stdout.write(f"acrag: threads in {checkpointer.url}\n")
        sys.stdout.flush()
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
