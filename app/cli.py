"""The `acrag` command line: one module per subcommand, user errors as one clear line.

Start-up is kept short: only the subcommand being run is imported (each imports its heavy
modules inside its handler), so `acrag ask` can say what it is loading within a second.
"""

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from importlib import import_module

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS: dict[str, str] = {
    "ask": "app.cmd_ask",
    "ingest": "app.cmd_ingest",
    "serve": "app.cmd_serve",
    "train": "app.cmd_train",
    "judges": "app.cmd_judges",
    "eval": "app.cmd_eval",
}
"""Subcommand -> module; each module's `add_parser(subparsers)` sets `handler` on its parser."""

_GLOBAL_WITH_VALUE = ("--home",)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("acrag")
    except PackageNotFoundError:
        return "unknown"


def command_in(argv: Sequence[str]) -> str | None:
    """Return the subcommand that `argv` runs, or None (help, a typo, no command)."""
    args = iter(argv)
    for arg in args:
        if arg in _GLOBAL_WITH_VALUE:
            next(args, None)
        elif not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand, or with `only` that one."""
    parser = argparse.ArgumentParser(
        prog="acrag",
        description="Adaptive, corrective, self-checking question answering over your documents.",
    )
    parser.add_argument(
        "--version", action="version", version=f"acrag {_version()}", help="print the version"
    )
    parser.add_argument(
        "--home", help="data directory for indexes, caches and threads (default: $ACRAG_HOME)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for name, module in COMMANDS.items():
        if only is None or name == only:
            import_module(module).add_parser(subparsers)
    return parser


def _user_error(error: Exception) -> bool:
    # Imported late: `models` loads LangChain, and a UserError means it is loaded already.
    from models.errors import UserError

    return isinstance(error, UserError)


def _exit_now(status: int) -> None:
    """Exit without tearing the interpreter down (model servers, threads, torch): seconds saved.

    Only for commands that set `fast_exit` (they have closed their stores by the time their
    handler returns), and only when run as a program, never from tests calling `main`.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    as_program = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(command_in(argv)).parse_args(argv)
    status = _run(args)
    if as_program and getattr(args, "fast_exit", False):
        _exit_now(status)
    return status


def _run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        sys.stderr.write("acrag: interrupted\n")
        return 130
    except Exception as error:
        if not _user_error(error):
            raise
        sys.stderr.write(f"acrag: error: {error}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
