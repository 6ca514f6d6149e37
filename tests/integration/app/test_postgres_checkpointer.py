"""Threads in a real PostgreSQL (Debian's packages), started on loopback for the test."""

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.app.conftest import free_port, have_postgres
from tests.unit.app.helpers import parse_sse, run_input


def _as_postgres_user(command: list[str]) -> list[str]:
    """Run as `postgres` when we are root (initdb refuses root), else as ourselves."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    bindir = have_postgres()
    if bindir is None:
        pytest.skip("PostgreSQL binaries are missing: run app/server/system_deps.sh")
    data = Path(tempfile.mkdtemp(prefix="acrag-pg-"))
    if os.geteuid() == 0:
        shutil.chown(data, "postgres", "postgres")
    port = free_port()
    initdb = [f"{bindir}/initdb", "-D", str(data / "db"), "-A", "trust", "-U", "acrag"]
    subprocess.run(_as_postgres_user(initdb), check=True, capture_output=True)
    options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off"
    pg_ctl = [f"{bindir}/pg_ctl", "-D", str(data / "db"), "-l", str(data / "log"), "-w"]
    subprocess.run(
        _as_postgres_user([*pg_ctl, "-o", options, "start"]), check=True, capture_output=True
    )
    try:
        yield f"postgresql://acrag@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_postgres_user([*pg_ctl, "-m", "fast", "stop"]), capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


def _ask(url: str, thread_id: str, question: str) -> list:
    response = httpx.post(
        f"{url}/threads/{thread_id}/runs/stream", json=run_input(question), timeout=60
    )
    assert response.status_code == 200
    return parse_sse(response.text)


def test_threads_survive_a_restart_in_postgres(serve, postgres_url, tmp_path):
    first = serve("--demo", "--checkpoint-url", postgres_url, home=tmp_path / "a")
    thread_id = httpx.post(f"{first.url}/threads", json={"metadata": {"title": "pg"}}).json()[
        "thread_id"
    ]
    frames = _ask(first.url, thread_id, "What is the capital of France?")
    assert [e for e, _ in frames if e == "error"] == []
    first.stop()

    # another home: nothing can come from SQLite, everything from PostgreSQL
    second = serve("--demo", "--checkpoint-url", postgres_url, home=tmp_path / "b")
    listed = httpx.post(f"{second.url}/threads/search", json={}).json()
    assert (thread_id, "pg") in [(t["thread_id"], t["metadata"].get("title")) for t in listed]
    _ask(second.url, thread_id, "Which river flows through Paris?")
    values = httpx.get(f"{second.url}/threads/{thread_id}/state").json()["values"]
    assert [m["type"] for m in values["messages"]] == ["human", "ai", "human", "ai"]
    assert not (tmp_path / "b" / "threads.sqlite").exists()

    import psycopg

    with psycopg.connect(postgres_url) as conn:
        count = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread_id,)
        ).fetchone()
    assert count is not None and count[0] >= 6


def test_a_second_server_on_the_same_database_refuses_to_start(serve, postgres_url, tmp_path):
    first = serve("--demo", "--checkpoint-url", postgres_url, home=tmp_path / "a")
    command = [sys.executable, "-m", "app.cli", "serve", "--demo", "--no-token"]
    command += ["--checkpoint-url", postgres_url, "--port", str(free_port())]
    env = {**os.environ, "ACRAG_HOME": str(tmp_path / "b")}
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode != 0
    assert "another `acrag serve` is using the threads" in second.stderr
    assert httpx.get(f"{first.url}/ok").status_code == 200  # the first carries on
    first.stop()
    third = serve("--demo", "--checkpoint-url", postgres_url, home=tmp_path / "c")
    assert httpx.get(f"{third.url}/ok").status_code == 200  # the lock ended with the first
