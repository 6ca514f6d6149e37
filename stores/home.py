"""The one data directory that holds indexes, caches and conversation threads."""

import os
from pathlib import Path

import platformdirs

__all__ = ["ENV_VAR", "acrag_home", "cache_dir"]

ENV_VAR = "ACRAG_HOME"


def acrag_home(override: str | os.PathLike[str] | None = None) -> Path:
    """Return the data directory, creating it if needed.

    The explicit `override` (the CLI's `--home`) wins over `$ACRAG_HOME`, which wins over the
    platform's user data directory.
    """
    chosen = override or os.environ.get(ENV_VAR) or platformdirs.user_data_dir("acrag")
    home = Path(chosen).expanduser().resolve()
    home.mkdir(parents=True, exist_ok=True)
    return home


def cache_dir() -> Path:
    """Return the user's cache directory for acrag (large derived files such as models)."""
    path = Path(platformdirs.user_cache_dir("acrag"))
    path.mkdir(parents=True, exist_ok=True)
    return path
