"""kill -9 of `acrag serve` during a run: after a restart the thread is listed, its finished
turns are intact (SQLite checkpoints), and the conversation resumes from its checkpoint."""

import os
import signal
import threading
from pathlib import Path

import httpx

from bench.suites.load import start_server

FIRST = "What is the capital of France?"
FOLLOW_UP = "Which river flows through it?"
INTERRUPTED = "Tell me about water boiling."


def _run(url: str, thread_id: str, question: str, *, started: threading.Event | None = None):
    body = {
        "assistant_id": "acrag",
        "input": {"question": question, "messages": [{"type": "human", "content": question}]},
        "stream_mode": ["updates", "custom", "messages-tuple"],
    }
    events = []
    try:
        with httpx.stream(
            "POST", f"{url}/threads/{thread_id}/runs/stream", json=body, timeout=120
        ) as response:
            for line in response.iter_lines():
                if line.startswith("event: "):
                    events.append(line[7:])
                    if started is not None and line == "event: custom":
                        started.set()
    except httpx.HTTPError as error:  # the server is killed under this one
        events.append(f"dropped: {type(error).__name__}")
    return events


def _humans(url: str, thread_id: str) -> list[str]:
    values = httpx.get(f"{url}/threads/{thread_id}/state", timeout=30).json()["values"]
    return [m["content"] for m in values.get("messages") or [] if m["type"] == "human"]


def test_conversation_resumes_after_sigkill_mid_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    server, url = start_server(home, demo=True, log=tmp_path / "serve.log")
    try:
        thread_id = httpx.post(f"{url}/threads", json={}, timeout=30).json()["thread_id"]
        assert "error" not in _run(url, thread_id, FIRST)
        started = threading.Event()
        runner = threading.Thread(
            target=_run, args=(url, thread_id, INTERRUPTED), kwargs={"started": started}
        )
        runner.start()
        assert started.wait(60), "the second run never started"
        os.killpg(server.pid, signal.SIGKILL)  # mid-run
        server.wait(30)
        runner.join(60)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)

    server, url = start_server(home, demo=True, log=tmp_path / "serve.log")
    try:
        listed = httpx.post(f"{url}/threads/search", json={}, timeout=30).json()
        assert thread_id in [t["thread_id"] for t in listed]
        assert _humans(url, thread_id)[0] == FIRST  # the finished turn survived
        events = _run(url, thread_id, FOLLOW_UP)  # not stuck "busy" after the crash
        assert "error" not in events and events[-1] != "metadata", events
        humans = _humans(url, thread_id)
        assert humans[0] == FIRST and humans[-1] == FOLLOW_UP
        assert set(humans) <= {FIRST, INTERRUPTED, FOLLOW_UP}
        values = httpx.get(f"{url}/threads/{thread_id}/state", timeout=30).json()["values"]
        assert [m["type"] for m in values["messages"]][-2:] == ["human", "ai"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)
