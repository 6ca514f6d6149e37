"""Issue 36: after a cancel, a disconnect or kill -9 and a restart, `{"question": X}` answers X.

Each test stops a run of `acrag serve --demo` once its question is stored, then asks another
question in the form README documents (`question` only) and checks which one was answered,
and that the thread holds no half-turn in between.
"""

import json
import os
import signal
import threading

import httpx
import pytest

from nodes.condense_question import STOPPED_TURN
from tests.integration.app.conftest import eventually

pytestmark = pytest.mark.integration

STOPPED = "At what degrees does ice melt and where does the Loire flow?"
NEXT = "What is the capital of France?"


def _body(question: str) -> dict:
    return {"assistant_id": "acrag", "input": {"question": question}, "stream_mode": ["updates"]}


def _stream(
    url: str,
    thread_id: str,
    question: str,
    *,
    stop_after: threading.Event | None = None,
    hang_up: bool = True,
):
    """Stream a run; with `stop_after`, set it at the second update and drop the connection
    (or, without `hang_up`, read on until the run ends or the server goes)."""
    lines: list[str] = []
    try:
        with httpx.stream(
            "POST", f"{url}/threads/{thread_id}/runs/stream", json=_body(question), timeout=60
        ) as response:
            assert response.status_code == 200, response.read()
            for line in response.iter_lines():
                lines.append(line)
                if line.startswith("data: ") and '"run_id"' in line:
                    lines.append("run_id " + json.loads(line[6:])["run_id"])
                if stop_after is not None and sum(x == "event: updates" for x in lines) >= 2:
                    stop_after.set()  # condense_question's update is stored by now
                    if hang_up:
                        return lines
    except httpx.HTTPError as error:  # the server was killed under this one
        lines.append(f"dropped: {type(error).__name__}")
    return lines


def _state(url: str, thread_id: str) -> dict:
    return httpx.get(f"{url}/threads/{thread_id}/state", timeout=30).json()["values"]


def _idle(url: str, thread_id: str) -> None:
    def idle() -> bool:
        threads = httpx.post(f"{url}/threads/search", json={}, timeout=30).json()
        return all(t["status"] == "idle" for t in threads if t["thread_id"] == thread_id)

    if not eventually(idle, every=0.1):
        raise TimeoutError("the stopped run never freed its thread")


def _stored(url: str, thread_id: str) -> None:
    """Wait until the checkpointer holds the stopped question (a fixed sleep raced on a busy CI)."""

    def stored() -> bool:
        last = ((_state(url, thread_id) or {}).get("messages") or [{}])[-1]
        return (last.get("type"), last.get("content")) == ("human", STOPPED)

    if not eventually(stored, every=0.02):
        raise TimeoutError("the question was never stored")


def _assert_answers_next(url: str, thread_id: str) -> None:
    messages = _state(url, thread_id)["messages"]
    assert [m["type"] for m in messages][-2:] == ["human", "ai"]  # no half-turn left
    lines = _stream(url, thread_id, NEXT)
    assert not any(line == "event: error" for line in lines), lines
    values = _state(url, thread_id)
    assert values["question"] == NEXT
    assert "Paris" in values["answer"]
    turns = [(m["type"], m["content"]) for m in values["messages"]]
    assert turns[:3] == [("human", STOPPED), ("ai", STOPPED_TURN), ("human", NEXT)]
    assert turns[3][0] == "ai" and "Paris" in turns[3][1]


def _thread(url: str) -> str:
    return httpx.post(f"{url}/threads", json={}, timeout=30).json()["thread_id"]


def test_a_cancelled_run_does_not_eat_the_next_question(serve) -> None:
    server = serve("--demo")
    thread_id = _thread(server.url)
    lines = _stream(server.url, thread_id, STOPPED, stop_after=threading.Event())
    run_id = next(line.split()[1] for line in lines if line.startswith("run_id "))
    cancel = f"{server.url}/threads/{thread_id}/runs/{run_id}/cancel?wait=true"
    assert httpx.post(cancel, timeout=30).status_code in (202, 404)  # 404: it ended already
    _idle(server.url, thread_id)
    _assert_answers_next(server.url, thread_id)


def test_a_disconnected_run_does_not_eat_the_next_question(serve) -> None:
    server = serve("--demo")
    thread_id = _thread(server.url)
    _stream(server.url, thread_id, STOPPED, stop_after=threading.Event())  # drops the stream
    _idle(server.url, thread_id)
    _assert_answers_next(server.url, thread_id)


def test_kill_9_and_restart_do_not_eat_the_next_question(serve, tmp_path) -> None:
    home = tmp_path / "home"
    server = serve("--demo", home=home)
    thread_id = _thread(server.url)
    stored = threading.Event()
    runner = threading.Thread(  # the client stays: a hang-up would stop the run before the kill
        target=_stream,
        args=(server.url, thread_id, STOPPED),
        kwargs={"stop_after": stored, "hang_up": False},
    )
    runner.start()
    assert stored.wait(60), "the run never started"
    _stored(server.url, thread_id)  # checkpoints are written in the background of the next step
    os.killpg(server.process.pid, signal.SIGKILL)
    server.process.wait(30)
    runner.join(60)

    restarted = serve("--demo", home=home)
    _assert_answers_next(restarted.url, thread_id)
