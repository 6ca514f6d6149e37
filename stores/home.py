"""The one data directory that holds indexes, caches and conversation threads."""

import os
from pathlib import Path

import platformdirs

from models.errors import UserError
from models.files import cache_dir

__all__ = ["ENV_VAR", "acrag_home", "cache_dir", "display_source"]

ENV_VAR = "ACRAG_HOME"


def acrag_home(override: str | os.PathLike[str] | None = None) -> Path:
    """Return the data directory, creating it if needed.

    The explicit `override` (the CLI's `--home`) wins over `$ACRAG_HOME`, which wins over the
    platform's user data directory.

    Raises:
        UserError: The directory cannot be created, or exists but is not writable (indexes
            and threads are written there, so nothing useful could run).
    """
    chosen = override or os.environ.get(ENV_VAR) or platformdirs.user_data_dir("acrag")
    home = Path(chosen).expanduser().resolve()
    hint = f"choose another with --home or ${ENV_VAR}"
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)  # threads and documents: private
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise UserError(f"cannot create the data directory {home} ({reason}); {hint}") from None
    if not os.access(home, os.W_OK | os.X_OK):
        raise UserError(f"the data directory {home} is not writable; {hint}")
    return home


def display_source(source: str, *, home: Path | None = None) -> str:
    """Return how a stored source is shown to clients: never an absolute server path.

    A file inside the data home is shown relative to it (`uploads/notes.md`); any other
    absolute path by its folder and name (`docs/guide.md`, as it was ingested from `docs/`).
    URLs and relative names pass unchanged. The index keeps the absolute path as its key.
    """
    if not source.startswith("/"):
        return source
    path = Path(source)
    if home is not None and path.is_relative_to(home):
        return path.relative_to(home).as_posix()
    return Path(*path.parts[-2:]).as_posix() if len(path.parts) > 2 else path.name
