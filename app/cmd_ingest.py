"""`acrag ingest PATH...`: index files, folders and JSONL; `--remove` drops a source."""

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from models.errors import UserError
from stores.chunking import DEFAULT_CHUNK_TOKENS, DEFAULT_OVERLAP
from stores.home import acrag_home
from stores.loaders import DEFAULT_MAX_FILE_MB
from stores.web import LOCAL_WEB_COLLECTION

if TYPE_CHECKING:
    from stores.ingest import IngestReport

__all__ = ["add_parser", "run"]

CHROMA_URL_ENV = "ACRAG_CHROMA_URL"


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add the `ingest` subcommand."""
    parser = subparsers.add_parser(
        "ingest",
        help="index documents (.txt .rst .md .html .pdf, man and Info pages, .gz; folders; JSONL)",
    )
    parser.add_argument("paths", nargs="*", type=Path, help="files or folders to index")
    parser.add_argument(
        "--web", action="store_true", help="index into the offline 'local web' corpus instead"
    )
    parser.add_argument(
        "--remove", action="append", default=[], metavar="SOURCE", help="remove a source's chunks"
    )
    parser.add_argument(
        "--chroma-url",
        default=os.environ.get(CHROMA_URL_ENV),
        help=f"Chroma server URL (default: ${CHROMA_URL_ENV}, else the embedded store)",
    )
    parser.add_argument(
        "--chunk-tokens",
        type=int,
        default=DEFAULT_CHUNK_TOKENS,
        help=f"tokens per chunk (default: {DEFAULT_CHUNK_TOKENS})",
    )
    parser.add_argument(
        "--overlap",
        type=int,
        default=DEFAULT_OVERLAP,
        help=f"tokens shared by neighbouring chunks (default: {DEFAULT_OVERLAP})",
    )
    parser.add_argument(
        "--max-file-mb",
        type=float,
        default=DEFAULT_MAX_FILE_MB,
        help=f"skip files larger than this (default: {DEFAULT_MAX_FILE_MB:g} MB)",
    )
    parser.add_argument(
        "--batch-size",
        type=int,
        default=256,
        help="chunks embedded and stored per batch (default: 256)",
    )
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw the progress bar (default: only when stderr is a terminal)",
    )
    parser.set_defaults(handler=run)


def _print_report(report: "IngestReport") -> None:
    for path, reason in report.skipped:
        sys.stdout.write(f"skipped {path}: {reason}\n")
    for source, note in report.notes:
        sys.stdout.write(f"note {source}: {note}\n")
    sys.stdout.write(report.summary() + "\n")


def run(args: argparse.Namespace) -> int:
    """Ingest or remove; exit 1 if any file was skipped."""
    if not args.paths and not args.remove:
        raise UserError("give at least one PATH to ingest or --remove SOURCE")
    if args.chunk_tokens < 1 or not 0 <= args.overlap < args.chunk_tokens:
        raise UserError("need --chunk-tokens >= 1 and 0 <= --overlap < --chunk-tokens")
    from stores.ingest import ingest, remove_sources  # Chroma loads only when needed

    os.umask(0o077)  # the index copies the documents' text: this user's alone
    home = acrag_home(args.home)
    collection = LOCAL_WEB_COLLECTION if args.web else "documents"
    if args.remove:
        removed = remove_sources(
            args.remove, home=home, collection=collection, chroma_url=args.chroma_url
        )
        sys.stdout.write(f"removed {removed} chunk(s)\n")
    if not args.paths:
        return 0
    report = ingest(
        args.paths,
        home=home,
        collection=collection,
        chroma_url=args.chroma_url,
        chunk_tokens=args.chunk_tokens,
        overlap=args.overlap,
        max_file_mb=args.max_file_mb,
        batch_size=args.batch_size,
        progress=args.progress,
    )
    _print_report(report)
    return 1 if report.skipped else 0
