"""The `acrag` command line: one module per subcommand, user errors as one clear line."""

import argparse
import logging
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from app import cmd_ask, cmd_eval, cmd_ingest, cmd_judges, cmd_serve, cmd_train
from models.errors import UserError

__all__ = ["build_parser", "main"]

# Each module adds one subcommand: `add_parser(subparsers)` sets `handler` on its parser.
COMMANDS = (cmd_ask, cmd_ingest, cmd_serve, cmd_train, cmd_judges, cmd_eval)


def _version() -> str:
    try:
        return version("acrag")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="acrag",
        description="Adaptive, corrective, self-checking question answering over your documents.",
    )
    parser.add_argument("--version", action="version", version=f"acrag {_version()}")
    parser.add_argument(
        "--home", help="data directory for indexes, caches and threads (default: $ACRAG_HOME)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.handler(args) or 0)
    except UserError as error:
        sys.stderr.write(f"acrag: error: {error}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("acrag: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
