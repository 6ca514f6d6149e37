"""Issue 18 against a real `acrag serve --demo` on loopback: the probes that found each point."""

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.app.conftest import Server, free_port
from tests.unit.app.helpers import parse_sse, run_input

TIMEOUT = 120  # the demo graph is quick, but this machine is shared and sometimes busy


@pytest.fixture
def server(tmp_path: Path):
    """`acrag serve --demo` with small upload and question limits."""
    port = free_port()
    command = [sys.executable, "-m", "app.cli", "serve", "--demo", "--no-token"]
    command += ["--port", str(port), "--max-upload-mb", "1", "--max-question-chars", "500"]
    started = Server(command, home=tmp_path / "home", port=port, log=tmp_path / "serve.log")
    yield started
    started.stop()


def _thread(server: Server, **body: Any) -> str:
    return str(httpx.post(f"{server.url}/threads", json=body).json()["thread_id"])


def _status(server: Server, thread_id: str) -> str:
    return str(httpx.get(f"{server.url}/threads/{thread_id}").json()["status"])


def _wait_idle(server: Server, thread_id: str) -> None:
    for _ in range(600):  # a bounded wait, generous for a busy machine
        if _status(server, thread_id) == "idle":
            return
        time.sleep(0.05)
    raise AssertionError("the thread stayed busy")


def test_point_1_a_run_context_cannot_reach_outside_the_server(server, tmp_path):
    thread_id = _thread(server)
    for context in (
        {"home": str(tmp_path / "other")},
        {"chroma_url": "http://127.0.0.1:9/"},
        {"generator_model": "gguf:/etc/passwd"},
        {"max_question_chars": 300_000},
    ):
        body = {**run_input(), "context": context}
        response = httpx.post(f"{server.url}/threads/{thread_id}/runs/stream", json=body)
        assert response.status_code == 422, context
        assert "is set by the server" in response.json()["detail"]


def test_point_2_other_sites_and_rebound_names_are_refused(server):
    evil = {"Origin": "http://evil.example"}
    assert httpx.post(f"{server.url}/threads", json={}, headers=evil).status_code == 403
    as_text = {"Content-Type": "text/plain"}
    assert httpx.post(f"{server.url}/threads", content=b"{}", headers=as_text).status_code == 415
    rebound = {"Host": "rebind.attacker.example:80"}
    assert httpx.post(f"{server.url}/threads", json={}, headers=rebound).status_code == 403
    assert httpx.get(f"{server.url}/threads/x/state", headers=rebound).status_code == 403


def test_point_3_a_client_that_hangs_up_mid_stream_does_not_wedge_the_thread(server):
    thread_id = _thread(server)
    body = run_input("Search the web for Paris and the Seine")
    url = f"{server.url}/threads/{thread_id}/runs/stream"
    with httpx.stream("POST", url, json=body, timeout=TIMEOUT) as r:
        for line in r.iter_lines():
            if line.startswith("event: custom"):
                break  # the page reloads while the answer streams
    _wait_idle(server, thread_id)
    for _ in range(120):  # the stopped run may still be finishing its current step
        again = httpx.post(
            f"{server.url}/threads/{thread_id}/runs/stream", json=run_input(), timeout=TIMEOUT
        )
        if again.status_code != 409:
            break
        time.sleep(0.5)
    assert again.status_code == 200
    assert parse_sse(again.text)[-1][0] != "error", again.text[-500:]


def test_point_3_bad_context_or_config_is_refused_and_the_thread_stays_usable(server):
    thread_id = _thread(server)
    for extra in ({"context": [1]}, {"config": [1]}):
        body = {**run_input(), **extra}
        response = httpx.post(f"{server.url}/threads/{thread_id}/runs/stream", json=body)
        assert response.status_code == 422
    assert _status(server, thread_id) == "idle"


def test_stop_cancels_a_run_and_the_thread_stays_usable(server):
    thread_id = _thread(server)
    frames: list[tuple[str, Any]] = []
    body = run_input("Search the web for Paris and the Seine")
    url = f"{server.url}/threads/{thread_id}/runs/stream"
    with httpx.stream("POST", url, json=body, timeout=TIMEOUT) as r:
        buffer = ""
        for text in r.iter_text():
            buffer += text
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                frames.extend(parse_sse(block + "\n\n"))
                if len(frames) == 2:
                    run_id = frames[0][1]["run_id"]
                    url = f"{server.url}/threads/{thread_id}/runs/{run_id}/cancel"
                    assert httpx.post(url).status_code == 202
    assert frames[-1][0] == "error" and frames[-1][1]["error"] == "UserInterrupt"
    assert not any(e == "custom" and d["type"] == "answer" for e, d in frames)
    _wait_idle(server, thread_id)
    url = f"{server.url}/threads/{thread_id}/runs/stream"
    assert httpx.post(url, json=run_input(), timeout=TIMEOUT).is_success


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/threads", b'{"metadata": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
        ("/threads", b'{"thread_id": {"a": 1}}'),
        ("/threads", b'{"metadata": "abc"}'),
        ("/threads/search", b'{"limit": 1e308}'),
    ],
)
def test_point_4_bad_input_is_a_4xx_never_a_500(server, path, body):
    headers = {"Content-Type": "application/json"}
    response = httpx.post(f"{server.url}{path}", content=body, headers=headers)
    assert response.status_code in (413, 422), response.text


def test_point_4_a_bad_stream_mode_is_refused(server):
    thread_id = _thread(server)
    body = {**run_input(), "stream_mode": 5}
    assert httpx.post(f"{server.url}/threads/{thread_id}/runs/stream", json=body).status_code == 422


def test_point_5_bodies_uploads_and_questions_are_bounded(server):
    big_json = {"metadata": {"pad": "x" * (2 * 2**20)}}
    assert httpx.post(f"{server.url}/threads", json=big_json).status_code == 413
    big_file = {"files": ("big.txt", b"x" * (5 * 2**20))}
    response = httpx.post(f"{server.url}/acrag/upload", files=big_file, timeout=60)
    assert response.status_code == 413 and "big.txt" in response.json()["detail"]
    assert [p for p in (server.home / "uploads").rglob("*") if p.is_file()] == []
    thread_id = _thread(server)
    long = run_input("why " * 1000)
    assert httpx.post(f"{server.url}/threads/{thread_id}/runs/stream", json=long).status_code == 422


def test_point_7_deleting_a_thread_forgets_its_messages(server):
    thread_id = _thread(server, thread_id="reused-id")
    httpx.post(f"{server.url}/threads/{thread_id}/runs/stream", json=run_input(), timeout=TIMEOUT)
    assert httpx.delete(f"{server.url}/threads/{thread_id}").status_code == 204
    _thread(server, thread_id="reused-id")
    assert httpx.get(f"{server.url}/threads/{thread_id}/state").json()["values"] == {}


def test_point_7_rejected_uploads_are_removed_and_long_names_keep_their_extension(server):
    files = [
        ("files", ("report.docx", b"PK\x03\x04")),
        ("files", ("n" * 300 + ".txt", b"Long names still index.")),
    ]
    response = httpx.post(f"{server.url}/acrag/upload", files=files, timeout=120)
    lines = [json.loads(line) for line in response.text.splitlines()]
    final = ("indexed", "unchanged", "skipped", "error")
    outcomes = {line["file"][-5:]: line["phase"] for line in lines if line["phase"] in final}
    assert outcomes == {".docx": "skipped", "n.txt": "indexed"}
    saved = [p.name for p in (server.home / "uploads").iterdir() if p.is_file()]
    assert len(saved) == 1 and saved[0].endswith(".txt")
    assert lines[-1]["indexed"] == 1 and lines[-1]["skipped"] == 1
    assert str(server.home) not in json.dumps(lines)


def test_point_9_the_token_is_not_in_argv_nor_the_banner(tmp_path):
    port = free_port()
    command = [sys.executable, "-m", "app.cli", "serve", "--demo", "--port", str(port)]
    log = tmp_path / "serve.log"
    token = "s3cret-token-value"
    env = {"ACRAG_SERVE_TOKEN": token}
    started = Server(command, home=tmp_path / "home", port=port, log=log, env=env)
    try:
        cmdline = Path(f"/proc/{started.process.pid}/cmdline").read_bytes()
        assert token.encode() not in cmdline
        assert token not in log.read_text() and f"http://127.0.0.1:{port}/ui/" in log.read_text()
        assert httpx.post(f"{started.url}/threads", json={}).status_code == 401
        auth = {"Authorization": f"Bearer {token}"}
        assert httpx.post(f"{started.url}/threads", json={}, headers=auth).status_code == 200
    finally:
        started.stop()
    assert os.environ.get("ACRAG_SERVE_TOKEN") != token
