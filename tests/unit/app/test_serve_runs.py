"""Issue 18, points 3 and 7, and issue 17's stop and history: runs always free their thread."""

import threading
import time
from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGenerationChunk
from langgraph.graph import START, StateGraph

from tests.unit.app.helpers import parse_sse, run_input

TOKENS = 400
produced: list[int] = []
delay = [0.01]
"""Seconds between tokens; a test sets 0 for runs it only needs to finish."""


class _SlowModel(GenericFakeChatModel):
    """Streams TOKENS tokens, 10 ms apart, counting how many it produced."""

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in super()._stream(messages, stop, run_manager, **kwargs):
            produced.append(1)
            time.sleep(delay[0])
            yield chunk


@pytest.fixture(autouse=True)
def _slow_tokens() -> None:
    delay[0] = 0.01


class _S(TypedDict, total=False):
    question: str
    answer: str


def _slow_graph(saver: Any) -> Any:
    def generate(state: _S) -> dict[str, Any]:
        model = _SlowModel(messages=iter([AIMessage(" ".join(["word"] * TOKENS))]))
        return {"answer": model.invoke("go").text}

    builder = StateGraph(_S)
    builder.add_node("generate", generate)
    builder.add_edge(START, "generate")
    return builder.compile(checkpointer=saver)


def _status(client, thread_id: str) -> str:
    return str(client.get(f"/threads/{thread_id}").json()["status"])


def _wait_idle(client, thread_id: str) -> None:
    for _ in range(250):
        listed = client.post("/threads/search", json={}).json()
        if all(t["status"] == "idle" for t in listed if t["thread_id"] == thread_id):
            return
        time.sleep(0.02)
    raise AssertionError("the thread stayed busy")


def _frames_until_cancel(client, thread_id: str) -> list[tuple[str, Any]]:
    """Stream a run, cancel it after its first answer token, and return every frame."""
    frames: list[tuple[str, Any]] = []
    with client.stream("POST", f"/threads/{thread_id}/runs/stream", json=run_input()) as response:
        assert response.status_code == 200
        buffer = ""
        for text in response.iter_text():
            buffer += text
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                frames.extend(parse_sse(block + "\n\n"))
                if frames[-1][0] == "messages" and sum(e == "messages" for e, _ in frames) == 1:
                    run_id = frames[0][1]["run_id"]
                    cancel = client.post(f"/threads/{thread_id}/runs/{run_id}/cancel")
                    assert cancel.status_code == 202
    return frames


def test_cancel_stops_the_run_mid_model_call_and_the_thread_stays_usable(make_client):
    client = make_client(graph=_slow_graph)
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    produced.clear()
    frames = _frames_until_cancel(client, thread_id)
    assert frames[0][0] == "metadata" and frames[0][1]["run_id"]
    stopped = {"error": "UserInterrupt", "message": "the run was stopped (cancelled)"}
    assert frames[-1] == ("error", stopped)
    assert len(produced) < TOKENS / 2  # the model call itself was interrupted
    _wait_idle(client, thread_id)
    delay[0] = 0.0
    again = client.post(f"/threads/{thread_id}/runs/stream", json=run_input())
    assert again.status_code == 200 and parse_sse(again.text)[-1][0] == "updates"


def test_cancel_of_an_unknown_run_is_404(client):
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    assert client.post(f"/threads/{thread_id}/runs/nope/cancel").status_code == 404


def test_a_run_over_the_time_limit_is_stopped_and_frees_the_thread(make_client):
    client = make_client(graph=_slow_graph, run_timeout_s=0.3)
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    frames = parse_sse(client.post(f"/threads/{thread_id}/runs/stream", json=run_input()).text)
    assert frames[-1][0] == "error" and frames[-1][1]["error"] == "TimeoutError"
    _wait_idle(client, thread_id)


def test_a_client_that_goes_away_frees_the_thread(make_client):
    client = make_client(graph=_slow_graph)
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    produced.clear()
    with client.stream("POST", f"/threads/{thread_id}/runs/stream", json=run_input()) as response:
        next(response.iter_text())  # the metadata frame, then hang up
    _wait_idle(client, thread_id)
    assert len(produced) < TOKENS
    delay[0] = 0.0
    assert client.post(f"/threads/{thread_id}/runs/stream", json=run_input()).status_code == 200


def test_a_run_that_fails_to_start_frees_the_thread(make_client):
    def broken(saver: Any) -> Any:
        graph = _slow_graph(saver)
        graph.stream = None  # the worker fails before the first chunk
        return graph

    client = make_client(graph=broken)
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    frames = parse_sse(client.post(f"/threads/{thread_id}/runs/stream", json=run_input()).text)
    assert frames[-1][0] == "error"
    _wait_idle(client, thread_id)


def test_deleting_a_thread_deletes_its_checkpoints(client):
    thread_id = client.post("/threads", json={"thread_id": "kept-id"}).json()["thread_id"]
    client.post(f"/threads/{thread_id}/runs/stream", json=run_input())
    assert client.get(f"/threads/{thread_id}/state").json()["values"]["messages"]
    assert client.delete(f"/threads/{thread_id}").status_code == 204
    client.post("/threads", json={"thread_id": thread_id})
    assert client.get(f"/threads/{thread_id}/state").json()["values"] == {}
    assert client.post(f"/threads/{thread_id}/history", json={"limit": 100}).json() == []


def test_a_busy_thread_cannot_be_deleted(make_client):
    delay[0] = 0.1  # the run must outlast the delete on a loaded machine
    client = make_client(graph=_slow_graph)
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    frames: list[tuple[str, Any]] = []

    def read_all() -> None:  # a client that stays connected and reads everything
        response = client.post(f"/threads/{thread_id}/runs/stream", json=run_input())
        frames.extend(parse_sse(response.text))

    reader = threading.Thread(target=read_all)
    reader.start()
    for _ in range(250):
        if _status(client, thread_id) == "busy":
            break
        time.sleep(0.02)
    assert client.delete(f"/threads/{thread_id}").status_code == 409
    run_id = next(iter(client.app.state.service._active.values())).run_id  # type: ignore[attr-defined]
    client.post(f"/threads/{thread_id}/runs/{run_id}/cancel?wait=true")
    reader.join(timeout=30)
    _wait_idle(client, thread_id)
    assert frames[0][0] == "metadata" and frames[0][1]["run_id"] == run_id
    assert client.delete(f"/threads/{thread_id}").status_code == 204


def test_history_returns_every_turn_of_a_long_conversation(client):
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    for turn in range(52):
        body = run_input(f"Where is Paris, question {turn}?")
        assert client.post(f"/threads/{thread_id}/runs/stream", json=body).status_code == 200
    turns = client.post(f"/threads/{thread_id}/history", json={"limit": 60, "turns": True}).json()
    assert len(turns) == 52
    assert [t["values"]["question"] for t in turns[::-1]][:2] == [
        "Where is Paris, question 0?",
        "Where is Paris, question 1?",
    ]
    last = turns[0]["values"]
    assert last["answer"] and last["citations"] and last["events"][0]["type"] == "question"
    raw = client.post(f"/threads/{thread_id}/history", json={"limit": 1000}).json()
    assert len(raw) > 52 * 3  # every checkpoint, for clients that filter `next == []` themselves
    older = client.post(
        f"/threads/{thread_id}/history",
        json={"limit": 5, "before": raw[0]["checkpoint"]["checkpoint_id"]},
    ).json()
    assert older[0]["checkpoint"] == raw[1]["checkpoint"]
    assert client.post(f"/threads/{thread_id}/history", json={"limit": 5000}).status_code == 422


def test_parallel_runs_on_different_threads_do_not_block_each_other(make_client):
    client = make_client()
    ids = [client.post("/threads", json={}).json()["thread_id"] for _ in range(4)]
    codes: list[int] = []

    def ask(thread_id: str) -> None:
        codes.append(client.post(f"/threads/{thread_id}/runs/stream", json=run_input()).status_code)

    workers = [threading.Thread(target=ask, args=(t,)) for t in ids]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert codes == [200] * 4
