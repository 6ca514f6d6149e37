"""Checkpointer set-up: conversation threads in SQLite by default, PostgreSQL when configured.

The SQLite file lives in the acrag home directory (`threads.sqlite`), so threads survive a
restart with no set-up. A `postgresql://` URL (the `--checkpoint-url` option or
`$ACRAG_CHECKPOINT_URL`) selects LangGraph's PostgreSQL saver over a small connection pool.
Both savers are the synchronous ones: the server runs graphs in worker threads.
"""

import fcntl
import logging
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from models.errors import UserError
from stores.home import acrag_home

__all__ = [
    "CHECKPOINT_URL_ENV",
    "Checkpointer",
    "open_checkpointer",
    "resolve_url",
    "sole_server",
]

logger = logging.getLogger(__name__)

CHECKPOINT_URL_ENV = "ACRAG_CHECKPOINT_URL"
SQLITE_FILE = "threads.sqlite"
SERVER_LOCK_KEY = 0x61637261675F73  # PostgreSQL advisory lock of `acrag serve` ("acrag_s")


@dataclass(frozen=True)
class Checkpointer:
    """An open checkpointer and the database behind it (for the thread registry)."""

    saver: BaseCheckpointSaver
    kind: Literal["sqlite", "postgres"]
    url: str
    """`sqlite:///<path>` or the PostgreSQL URL (printable: the password is masked)."""
    connect: Any
    """A context-manager factory yielding a DB-API connection to the same database."""


def resolve_url(url: str | None = None, *, home: Path | None = None) -> str:
    """Return the checkpoint URL: `url`, else `$ACRAG_CHECKPOINT_URL`, else SQLite in home."""
    chosen = url or os.environ.get(CHECKPOINT_URL_ENV)
    if chosen:
        return chosen
    return f"sqlite:///{(home or acrag_home()) / SQLITE_FILE}"


def _mask(url: str) -> str:
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


@contextmanager
def _sqlite(path: Path) -> Iterator[Checkpointer]:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    saver = SqliteSaver(conn)
    saver.setup()

    @contextmanager
    def connect() -> Iterator[sqlite3.Connection]:
        registry = sqlite3.connect(path, timeout=30)
        try:
            with registry:
                yield registry
        finally:
            registry.close()

    try:
        yield Checkpointer(saver, "sqlite", f"sqlite:///{path}", connect)
    finally:
        conn.close()


@contextmanager
def _postgres(url: str) -> Iterator[Checkpointer]:
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool
    except ImportError as error:  # pragma: no cover - depends on the installed extras
        raise UserError(
            "a PostgreSQL checkpoint URL needs `pip install langgraph-checkpoint-postgres "
            "'psycopg[binary]' psycopg-pool`"
        ) from error
    kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    with ConnectionPool(url, min_size=1, max_size=8, kwargs=kwargs, open=True) as pool:
        saver = PostgresSaver(pool)  # type: ignore[arg-type]
        saver.setup()
        yield Checkpointer(saver, "postgres", _mask(url), pool.connection)


@contextmanager
def open_checkpointer(
    url: str | None = None, *, home: Path | None = None
) -> Iterator[Checkpointer]:
    """Open the configured checkpointer, creating its tables, and close it afterwards.

    Args:
        url: `postgresql://...`, `sqlite:///<path>`, or None for the configured default.
        home: The data directory holding the default SQLite file.

    Raises:
        UserError: The URL's scheme is not supported.
    """
    resolved = resolve_url(url, home=home)
    if resolved.startswith(("postgresql://", "postgres://")):
        manager = _postgres(resolved)
    elif resolved.startswith("sqlite:///"):
        manager = _sqlite(Path(resolved.removeprefix("sqlite:///")))
    else:
        raise UserError(
            f"unsupported checkpoint URL {_mask(resolved)!r}: use sqlite:/// or postgresql://"
        )
    with manager as checkpointer:
        logger.info("threads are kept in %s", checkpointer.url)
        yield checkpointer


@contextmanager
def sole_server(checkpointer: Checkpointer) -> Iterator[None]:
    """Hold the thread store for one `acrag serve`: a second one on it fails at start.

    A server keeps its thread locks in memory, so two on one database would run the same
    thread twice. SQLite: an exclusive `flock` on `<file>.serve.lock` (holding the pid);
    PostgreSQL: a session advisory lock on a connection kept for the server's life. Both
    end with the process, however it ends, so a crashed server never blocks the next.

    Raises:
        UserError: Another server holds the store.
    """
    busy = UserError(
        f"another `acrag serve` is using the threads in {checkpointer.url}: stop it first, "
        "or give this one its own --home or --checkpoint-url (for several processes on one "
        "database, run the cluster: docs/serving.md)"
    )
    if checkpointer.kind == "sqlite":
        path = Path(checkpointer.url.removeprefix("sqlite:///") + ".serve.lock")
        with path.open("a+", encoding="utf-8") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.seek(0)
                holder = lock.read().strip()
                raise UserError(f"{busy} (pid {holder or 'unknown'})") from None
            lock.truncate(0)
            lock.write(f"{os.getpid()}\n")
            lock.flush()
            yield
        return
    with checkpointer.connect() as conn:
        row = conn.execute("SELECT pg_try_advisory_lock(%s) AS held", (SERVER_LOCK_KEY,)).fetchone()
        if not row["held"]:
            raise busy
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (SERVER_LOCK_KEY,))
