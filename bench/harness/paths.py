"""Paths as committed files should hold them: relative to the repository, never one machine's."""

import shlex
from collections.abc import Sequence
from os.path import relpath
from pathlib import Path

__all__ = ["REPOSITORY", "portable_command", "portable_path"]

REPOSITORY = Path(__file__).resolve().parents[2]
"""The checkout this code runs from."""


def portable_path(value: str | Path, *, home: Path | None = None) -> str:
    """Return `value` relative to the repository (or `$ACRAG_HOME` for the data directory).

    Anything else absolute, such as a file beside the checkout (`../shared/data/...`), is
    written relative to the repository too; relative paths are kept as given.
    """
    path = Path(value)
    if not path.is_absolute():
        return str(value)
    resolved = path.resolve()
    if home is not None and resolved.is_relative_to(home.resolve()):
        return str(Path("$ACRAG_HOME") / resolved.relative_to(home.resolve()))
    return relpath(resolved, REPOSITORY)


def portable_command(program: str, argv: Sequence[str], *, home: Path | None = None) -> str:
    """Return the command line with every absolute path made portable."""
    words = [portable_path(a, home=home) if a.startswith("/") else a for a in argv]
    return " ".join([program, *(shlex.quote(w) for w in words)])
