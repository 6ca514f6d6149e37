"""`langgraph dev` serves the exported graph; a run streams updates, custom events and messages."""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_sync_client

REPO = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def server(sample_home: Path, tmp_path: Path):
    port = free_port()
    log = tmp_path / "langgraph-dev.log"
    env = {
        **os.environ,
        "ACRAG_HOME": str(sample_home),
        "LANGSMITH_TRACING": "false",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "PYTHONUNBUFFERED": "1",
    }
    with log.open("w") as out:
        process = subprocess.Popen(
            [
                str(REPO / ".venv" / "bin" / "langgraph"),
                "dev",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-browser",
                "--no-reload",
                "--config",
                str(REPO / "langgraph.json"),
            ],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, f"server exited:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"server not up:\n{log.read_text()[-3000:]}"
            try:
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        yield url, log
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_langgraph_dev_streams_steps_and_answer_tokens(server):
    url, log = server
    client = get_sync_client(url=url)
    assert any(a["graph_id"] == "acrag" for a in client.assistants.search(graph_id="acrag"))
    parts = list(
        client.runs.stream(
            None,
            "acrag",
            input={
                "messages": [{"role": "user", "content": "What kind of book is Where's Waldo?"}]
            },
            context={
                "web_backend": "local",
                "route": "B",
                "candidates": 1,
                "max_answer_tokens": 48,
            },
            stream_mode=["updates", "custom", "messages"],
        )
    )
    errors = [p.data for p in parts if p.event == "error"]
    assert not errors, f"{errors}\n{log.read_text()[-3000:]}"
    custom = [p.data for p in parts if p.event == "custom"]
    assert [e["type"] for e in custom][:2] == ["question", "route"]
    assert {"retrieval", "grades", "crag_action", "strips", "critique", "answer"} <= {
        e["type"] for e in custom
    }
    updated = {node for p in parts if p.event == "updates" for node in p.data}
    assert {"classify_complexity", "retrieve", "grade_documents", "generate", "finalize"} <= updated
    messages = [p.data for p in parts if p.event.startswith("messages")]
    texts = [m[0].get("content") for m in messages if isinstance(m, list) and m]
    final = custom[-1]
    # `messages` mode sends the first candidate growing token by token as the model writes it
    # (messages/partial); every piece extends the one before, so nothing from the judges or
    # the other candidates leaks in. Unless reflection revised it, it is the answer.
    partial = [text for text in texts if text]
    assert len(partial) > 2, texts
    assert all(b.startswith(a) for a, b in zip(partial, partial[1:], strict=False)), texts
    if not final["revised"] and not final["abstained"]:
        assert final["answer"] in partial[-1], texts
    assert "blocking" not in log.read_text().lower()
