"""Checkpointer set-up and the thread registry."""

from pathlib import Path

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from app.server.threads import ThreadRegistry
from models.errors import UserError
from stores.checkpoint import (
    CHECKPOINT_URL_ENV,
    _mask,
    open_checkpointer,
    resolve_url,
    sole_server,
)


def test_default_is_sqlite_in_the_home(tmp_path: Path, monkeypatch):
    monkeypatch.delenv(CHECKPOINT_URL_ENV, raising=False)
    assert resolve_url(home=tmp_path) == f"sqlite:///{tmp_path / 'threads.sqlite'}"
    monkeypatch.setenv(CHECKPOINT_URL_ENV, "postgresql://u:p@h/db")
    assert resolve_url(home=tmp_path) == "postgresql://u:p@h/db"
    assert resolve_url("sqlite:////x.db", home=tmp_path) == "sqlite:////x.db"


def test_sqlite_checkpoints_survive_reopening(tmp_path: Path):
    config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
    with open_checkpointer(home=tmp_path) as first:
        assert first.kind == "sqlite"
        first.saver.put(config, empty_checkpoint(), {"source": "input", "step": -1}, {})
    with open_checkpointer(home=tmp_path) as second:
        assert second.saver.get_tuple(config) is not None


def test_one_server_at_a_time_on_a_sqlite_store(tmp_path: Path):
    with open_checkpointer(home=tmp_path) as first, sole_server(first):
        with open_checkpointer(home=tmp_path) as second:
            with pytest.raises(UserError, match=r"another `acrag serve`.*\(pid \d+\)"):
                with sole_server(second):
                    pass
        with open_checkpointer(home=tmp_path / "other") as elsewhere, sole_server(elsewhere):
            pass  # another home is another store
    with open_checkpointer(home=tmp_path) as again, sole_server(again):
        pass  # released when the first server ends


def test_unsupported_url_is_a_user_error(tmp_path: Path):
    with pytest.raises(UserError, match="unsupported checkpoint URL"):
        with open_checkpointer("mysql://u:secret@h/db", home=tmp_path):
            pass


def test_passwords_are_masked():
    assert _mask("postgresql://acrag:secret@127.0.0.1:5432/db") == (
        "postgresql://acrag:***@127.0.0.1:5432/db"
    )
    assert _mask("sqlite:////tmp/x") == "sqlite:////tmp/x"


def test_registry_creates_lists_touches_and_deletes(tmp_path: Path):
    with open_checkpointer(home=tmp_path) as checkpointer:
        registry = ThreadRegistry(checkpointer)
        a = registry.create(metadata={"title": "a"})
        b = registry.create(thread_id="fixed", metadata={"title": "b"})
        assert registry.create(thread_id="fixed")["metadata"] == {"title": "b"}
        assert [t["thread_id"] for t in registry.search()] in (
            ["fixed", a["thread_id"]],
            [a["thread_id"], "fixed"],
        )
        registry.touch(a["thread_id"], metadata={"runs": 1})
        first = registry.search(limit=1)[0]
        assert first["thread_id"] == a["thread_id"]
        assert first["metadata"] == {"title": "a", "runs": 1}
        assert registry.search(limit=1, offset=1)[0]["thread_id"] == b["thread_id"]
        assert registry.delete("fixed") and not registry.delete("fixed")
        assert registry.get("fixed") is None
