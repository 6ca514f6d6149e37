"""The thread registry: ids, titles and times of conversations, next to their checkpoints.

Checkpointers store states, not a list of conversations, so `acrag serve` keeps one small table
(`acrag_threads`) in the same database: SQLite by default, PostgreSQL when configured. Rows are
shaped like the LangGraph API's `Thread` objects so the page works with either server.
"""

import json
import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from stores.checkpoint import Checkpointer

__all__ = ["ThreadLimitError", "ThreadRegistry", "now_iso"]

_COLUMNS = "thread_id, created_at, updated_at, metadata"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS acrag_threads ("
    "thread_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, "
    "metadata TEXT NOT NULL)"
)


def now_iso() -> str:
    """Return the current UTC time in ISO 8601, as the LangGraph API writes it."""
    return datetime.now(UTC).isoformat()


class ThreadLimitError(RuntimeError):
    """The server keeps as many threads as it may: delete some before creating more."""


class ThreadRegistry:
    """Create, list, touch and delete threads in the checkpointer's database (blocking calls)."""

    def __init__(self, checkpointer: Checkpointer, *, max_threads: int | None = None) -> None:
        self.max_threads = max_threads
        self._connect = checkpointer.connect
        self._mark: Literal["?", "%s"] = "?" if checkpointer.kind == "sqlite" else "%s"
        with self._connect() as conn:
            conn.execute(_SCHEMA)

    def _sql(self, text: str) -> str:
        return text.replace("?", self._mark)

    @staticmethod
    def _thread(row: Any) -> dict[str, Any]:
        values = list(row.values()) if isinstance(row, dict) else list(row)
        thread_id, created, updated, metadata = values
        try:
            parsed = json.loads(metadata)
        except ValueError:
            parsed = None
        return {
            "thread_id": thread_id,
            "created_at": created,
            "updated_at": updated,
            "state_updated_at": updated,
            # Rows written before metadata was checked may hold anything: read them as {}.
            "metadata": parsed if isinstance(parsed, dict) else {},
            "status": "idle",
            "config": {},
            "values": None,
        }

    def create(
        self, *, thread_id: str | None = None, metadata: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Create a thread (or return the existing one with that id).

        Raises:
            ThreadLimitError: `max_threads` threads exist already.
        """
        thread_id = thread_id or str(uuid.uuid4())
        if self.max_threads is not None and self.get(thread_id) is None:
            if self.count() >= self.max_threads:
                raise ThreadLimitError(
                    f"this server keeps at most {self.max_threads} threads; delete some first"
                )
        stamp = now_iso()
        with self._connect() as conn:
            conn.execute(
                self._sql(
                    f"INSERT INTO acrag_threads ({_COLUMNS}) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (thread_id) DO NOTHING"
                ),
                (thread_id, stamp, stamp, json.dumps(metadata or {})),
            )
        thread = self.get(thread_id)
        assert thread is not None
        return thread

    def get(self, thread_id: str) -> dict[str, Any] | None:
        """Return one thread, or None."""
        with self._connect() as conn:
            cursor = conn.execute(
                self._sql(f"SELECT {_COLUMNS} FROM acrag_threads WHERE thread_id = ?"),
                (thread_id,),
            )
            row = cursor.fetchone()
        return None if row is None else self._thread(row)

    def count(self) -> int:
        """Return how many threads exist."""
        with self._connect() as conn:
            row = conn.execute("SELECT COUNT(*) FROM acrag_threads").fetchone()
        return int(list(row.values())[0] if isinstance(row, dict) else row[0])

    def search(self, *, limit: int = 20, offset: int = 0) -> list[dict[str, Any]]:
        """Return threads, most recently updated first."""
        with self._connect() as conn:
            cursor = conn.execute(
                self._sql(
                    f"SELECT {_COLUMNS} FROM acrag_threads "
                    "ORDER BY updated_at DESC LIMIT ? OFFSET ?"
                ),
                (limit, offset),
            )
            rows = cursor.fetchall()
        return [self._thread(row) for row in rows]

    def touch(self, thread_id: str, *, metadata: dict[str, Any] | None = None) -> None:
        """Mark a thread as just updated, merging `metadata` into its metadata."""
        thread = self.get(thread_id) or self.create(thread_id=thread_id)
        merged = {**thread["metadata"], **(metadata or {})}
        with self._connect() as conn:
            conn.execute(
                self._sql(
                    "UPDATE acrag_threads SET updated_at = ?, metadata = ? WHERE thread_id = ?"
                ),
                (now_iso(), json.dumps(merged), thread_id),
            )

    def delete(self, thread_id: str) -> bool:
        """Delete a thread's registry row; return whether it existed."""
        with self._connect() as conn:
            cursor = conn.execute(
                self._sql("DELETE FROM acrag_threads WHERE thread_id = ?"), (thread_id,)
            )
            return bool(cursor.rowcount)
