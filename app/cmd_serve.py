"""`acrag serve`: the chat page and a LangGraph-compatible run API, threads kept across restarts."""

import argparse
import ipaddress
import logging
import os
import secrets
import socket
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from models.errors import UserError
from stores.checkpoint import CHECKPOINT_URL_ENV
from stores.home import acrag_home

__all__ = [
    "DEFAULT_PORT",
    "TOKEN_ENV",
    "add_parser",
    "bind",
    "build_service",
    "choose_token",
    "read_token",
    "run",
]

logger = logging.getLogger(__name__)

DEFAULT_PORT = 8123
TOKEN_ENV = "ACRAG_SERVE_TOKEN"


def _limit_options(parser: argparse.ArgumentParser) -> None:
    from app.server.limits import ServerLimits

    defaults = ServerLimits()
    options = [
        ("--max-body-mb", float, defaults.max_body_mb, "largest JSON request body, in MB"),
        ("--max-upload-mb", float, defaults.max_upload_mb, "largest uploaded file, in MB"),
        ("--max-question-chars", int, defaults.max_question_chars, "longest question accepted"),
        ("--run-timeout", float, defaults.run_timeout_s, "seconds before a run is stopped"),
        ("--max-threads", int, defaults.max_threads, "most conversations kept"),
        ("--max-connections", int, defaults.max_connections, "open connections before 503"),
        ("--max-header-kb", int, defaults.max_header_kb, "largest request head, in KiB"),
        ("--header-timeout", float, defaults.header_timeout_s, "seconds to send a request head"),
        ("--body-timeout", float, defaults.body_timeout_s, "seconds to send a request body"),
    ]
    for flag, kind, default, text in options:
        parser.add_argument(flag, type=kind, default=default, help=f"{text} (default: {default:g})")


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `serve` subcommand."""
    parser = subparsers.add_parser("serve", help="serve the chat page and the run API")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    parser.add_argument(
        "--token-file",
        type=Path,
        help=f"file holding the bearer token the API requires (default: ${TOKEN_ENV}, if set)",
    )
    parser.add_argument("--token", help=argparse.SUPPRESS)  # refused: argv is visible in `ps`
    parser.add_argument(
        "--no-token",
        action="store_true",
        help="serve without a token when none is set (default: a random one, printed once)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also accept this Host name (IP addresses and loopback names always pass)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also accept browser requests from this origin, e.g. https://tools.example",
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
    _limit_options(parser)
    parser.set_defaults(handler=run)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read_token(args: argparse.Namespace) -> str | None:
    """Return the bearer token from `--token-file` or `$ACRAG_SERVE_TOKEN` (None: no token)."""
    if args.token:
        raise UserError(
            f"--token would show the token to every user in `ps`: put it in ${TOKEN_ENV} "
            "or a file given with --token-file"
        )
    if args.token_file is None:
        return os.environ.get(TOKEN_ENV) or None
    try:
        token = args.token_file.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise UserError(f"cannot read --token-file: {error.strerror}") from None
    if not token:
        raise UserError("the --token-file is empty")
    return token


def bind(host: str, port: int) -> socket.socket:
    """Return a listening socket on host:port, or raise UserError if the port is taken."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        reason = error.strerror or str(error)
        message = f"cannot listen on {host}:{port} ({reason}); choose another --port"
        raise UserError(message) from None
    return sock


def build_service(checkpointer: Any, *, home: Path, demo: bool, args: Any = None) -> Any:
    """Compile the graph (or the demo graph) with the checkpointer and wrap it for serving."""
    from app.server.limits import ServerLimits
    from app.server.runs import GraphService
    from app.server.threads import ThreadRegistry

    limits = _limits(args) if args is not None else ServerLimits()
    graph: Any
    context: dict[str, Any] = {"max_question_chars": limits.max_question_chars}
    if demo:
        from app.server.demo_graph import build_demo_graph

        graph = build_demo_graph(checkpointer=checkpointer.saver, home=home)
    else:
        from graphs import build_graph

        graph = build_graph(checkpointer=checkpointer.saver)
        context["home"] = str(home)
    return GraphService(
        graph,
        ThreadRegistry(checkpointer, max_threads=limits.max_threads),
        default_context=context,
        max_runs=limits.max_runs,
        run_timeout_s=limits.run_timeout_s,
    )


def _limits(args: argparse.Namespace) -> Any:
    from app.server.limits import ServerLimits

    return ServerLimits(
        max_body_mb=args.max_body_mb,
        max_upload_mb=args.max_upload_mb,
        max_question_chars=args.max_question_chars,
        run_timeout_s=args.run_timeout,
        max_threads=args.max_threads,
        max_connections=args.max_connections,
        max_header_kb=args.max_header_kb,
        header_timeout_s=args.header_timeout,
        body_timeout_s=args.body_timeout,
    )


def choose_token(args: argparse.Namespace) -> tuple[str | None, bool]:
    """Return the token to require and whether it was made up here (to print it once).

    A token set by `--token-file` or `$ACRAG_SERVE_TOKEN` wins; otherwise a random one, so
    other accounts on the same machine cannot use a loopback server, unless `--no-token`.
    """
    token = read_token(args)
    if token or args.no_token:
        return token, False
    return secrets.token_urlsafe(24), True


def _announce(args: argparse.Namespace, token: str | None, made: bool, threads_url: str) -> None:
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    page = f"http://{shown_host}:{args.port}/ui/"
    if made:  # the fragment never reaches the server or its logs; the page keeps it per tab
        sys.stdout.write(f"acrag: chat page at {page}#token={token}\n")
        sys.stdout.write("acrag: open that link (it carries this run's token; keep it private)\n")
    else:
        sys.stdout.write(f"acrag: chat page at {page}\n")
        if token:
            sys.stdout.write("acrag: the API needs the bearer token; the page asks for it once\n")
    sys.stdout.write(f"acrag: threads in {threads_url}\n")
    sys.stdout.flush()


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    import uvicorn

    from app.server.asgi import create_app
    from app.server.protocol import uvicorn_config
    from stores.checkpoint import open_checkpointer, sole_server

    os.umask(0o077)  # threads, uploads and indexes are this user's alone
    token, made = choose_token(args)
    if not _is_loopback(args.host) and not token:
        logger.warning(
            "serving on %s without a token: anyone who can reach it can use it; set $%s",
            args.host,
            TOKEN_ENV,
        )
    home = acrag_home(args.home)
    with ExitStack() as stack:
        sock = stack.enter_context(bind(args.host, args.port))
        try:
            checkpointer = stack.enter_context(open_checkpointer(args.checkpoint_url, home=home))
        except Exception as error:  # noqa: BLE001 - any driver error becomes one clear line
            raise UserError(f"cannot open the thread store: {error}") from error
        stack.enter_context(sole_server(checkpointer))
        service = build_service(checkpointer, home=home, demo=args.demo, args=args)
        if closed := service.close_open_turns(limit=args.max_threads):
            logger.warning("closed %d turn(s) a stopped server left open", closed)
        app = create_app(
            service=service,
            home=home,
            token=token,
            limits=_limits(args),
            allowed_hosts=args.allow_host,
            allowed_origins=args.allow_origin,
        )
        _announce(args, token, made, checkpointer.url)
        server = uvicorn.Server(uvicorn_config(app, _limits(args)))
        server.run(sockets=[sock])
    return 0
