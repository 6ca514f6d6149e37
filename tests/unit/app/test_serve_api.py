"""The LangGraph-API subset served by `acrag serve`: threads, state, history, streamed runs."""

import asyncio
import threading
from typing import Any, TypedDict

import pytest
from langgraph.config import get_stream_writer
from langgraph.graph import START, StateGraph

from tests.unit.app.helpers import QUESTION, parse_sse, run_input


def _stream(client, thread_id: str, question: str = QUESTION) -> list[tuple[str, Any]]:
    response = client.post(f"/threads/{thread_id}/runs/stream", json=run_input(question))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    return parse_sse(response.text)


def test_stream_run_emits_metadata_steps_tokens_and_updates_in_order(client):
    thread = client.post("/threads", json={"metadata": {"title": "France"}}).json()
    frames = _stream(client, thread["thread_id"])

    assert frames[0][0] == "metadata" and frames[0][1]["run_id"]
    custom = [data["type"] for event, data in frames if event == "custom"]
    # the demo is the real graph with model-free stand-ins: CRAG may add a web search
    assert custom[:6] == ["question", "route", "retrieval", "grades", "crag_action", "strips"]
    assert custom[-2:] == ["critique", "answer"]
    route = next(d for e, d in frames if e == "custom" and d["type"] == "route")
    assert route["probabilities"] == {"A": 0.1, "B": 0.8, "C": 0.1}
    tokens = [d[0] for e, d in frames if e == "messages"]
    assert all(t["type"] == "AIMessageChunk" for t in tokens) and len(tokens) > 5
    final = next(d for e, d in frames if e == "custom" and d["type"] == "answer")
    assert final["revised"] or "".join(t["content"] for t in tokens) == final["answer"]
    metadata = [d[1] for e, d in frames if e == "messages"]
    assert {m["langgraph_node"] for m in metadata} == {"generate"}
    updated = [next(iter(d)) for e, d in frames if e == "updates"]
    assert updated[:5] == [
        "condense_question",
        "classify_complexity",
        "retrieve",
        "grade_documents",
        "refine_strips",
    ]
    assert updated[-3:] == ["generate", "reflect", "finalize"]
    # tokens arrive after the retrieval steps and before the final answer event
    kinds = [e if e != "custom" else d["type"] for e, d in frames]
    assert kinds.index("strips") < kinds.index("messages") < kinds.index("answer")


def test_state_history_and_follow_up_keep_the_conversation(client):
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    _stream(client, thread_id)
    _stream(client, thread_id, "Which river flows through Paris?")

    values = client.get(f"/threads/{thread_id}/state").json()["values"]
    kinds = [m["type"] for m in values["messages"]]
    assert kinds == ["human", "ai", "human", "ai"]
    assert values["messages"][2]["content"] == "Which river flows through Paris?"
    assert values["citations"][0]["marker"] == 1 and values["citations"][0]["text"]

    history = client.post(f"/threads/{thread_id}/history", json={"limit": 3}).json()
    assert len(history) == 3
    assert (
        history[0]["checkpoint"]["checkpoint_id"]
        == client.get(f"/threads/{thread_id}/state").json()["checkpoint"]["checkpoint_id"]
    )
    assert len(client.get(f"/threads/{thread_id}/history?limit=2").json()) == 2


def test_threads_are_listed_newest_first_and_can_be_deleted(client):
    first = client.post("/threads", json={"metadata": {"title": "one"}}).json()["thread_id"]
    second = client.post("/threads", json={"metadata": {"title": "two"}}).json()["thread_id"]
    _stream(client, first)
    listed = client.post("/threads/search", json={"limit": 10}).json()
    assert [t["thread_id"] for t in listed] == [first, second]
    assert listed[0]["metadata"] == {"title": "one"} and listed[0]["status"] == "idle"
    assert client.get(f"/threads/{second}").json()["metadata"] == {"title": "two"}
    assert client.delete(f"/threads/{second}").status_code == 204
    assert client.get(f"/threads/{second}").status_code == 404


def test_threads_and_history_survive_a_restart(make_client):
    before = make_client()
    thread_id = before.post("/threads", json={"metadata": {"title": "kept"}}).json()["thread_id"]
    _stream(before, thread_id)
    after = make_client()  # a new app and checkpointer over the same home
    listed = after.post("/threads/search", json={}).json()
    assert [(t["thread_id"], t["metadata"]["title"]) for t in listed] == [(thread_id, "kept")]
    messages = after.get(f"/threads/{thread_id}/state").json()["values"]["messages"]
    assert [m["type"] for m in messages] == ["human", "ai"]


def test_unknown_thread_is_404_unless_asked_to_create(client):
    assert client.get("/threads/nope/state").status_code == 404
    assert client.post("/threads/nope/runs/stream", json=run_input()).status_code == 404
    body = {**run_input(), "if_not_exists": "create"}
    response = client.post("/threads/made-now/runs/stream", json=body)
    assert response.status_code == 200
    assert client.get("/threads/made-now").json()["values"]["answer"]


def test_bad_requests_are_rejected_with_a_reason(client):
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    bad_mode = {**run_input(), "stream_mode": ["tasks-v9"]}
    response = client.post(f"/threads/{thread_id}/runs/stream", json=bad_mode)
    assert response.status_code == 422 and "unsupported stream_mode" in response.json()["detail"]
    json_type = {"Content-Type": "application/json"}
    response = client.post("/threads", content=b"[1, 2]", headers=json_type)
    assert response.status_code == 422


def test_a_failing_node_becomes_an_error_event(make_client):
    class S(TypedDict, total=False):
        question: str

    def boom(state: S) -> dict[str, Any]:
        raise RuntimeError("the model fell over")

    def failing(saver):
        builder = StateGraph(S)
        builder.add_node("boom", boom)
        builder.add_edge(START, "boom")
        return builder.compile(checkpointer=saver)

    client = make_client(graph=failing)
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    frames = _stream(client, thread_id)
    assert frames[-1] == ("error", {"error": "RuntimeError", "message": "the model fell over"})


def test_nodes_run_off_the_event_loop_and_a_busy_thread_refuses_a_second_run(make_client):
    seen: dict[str, Any] = {}
    release = threading.Event()

    class S(TypedDict, total=False):
        question: str

    def slow(state: S) -> dict[str, Any]:
        try:
            asyncio.get_running_loop()
            seen["loop"] = True
        except RuntimeError:
            seen["loop"] = False
        get_stream_writer()({"type": "route", "route": "A"})
        release.wait(5)
        return {}

    def graph(saver):
        builder = StateGraph(S)
        builder.add_node("slow", slow)
        builder.add_edge(START, "slow")
        return builder.compile(checkpointer=saver)

    client = make_client(graph=graph)
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    result: dict[str, Any] = {}
    runner = threading.Thread(
        target=lambda: result.setdefault("frames", _stream(client, thread_id))
    )
    runner.start()
    for _ in range(100):
        if client.post("/threads/search", json={}).json()[0]["status"] == "busy":
            break
        threading.Event().wait(0.02)
    second = client.post(f"/threads/{thread_id}/runs/stream", json=run_input())
    release.set()
    runner.join(10)
    assert second.status_code == 409
    assert seen["loop"] is False
    assert ("custom", {"type": "route", "route": "A"}) in result["frames"]


@pytest.mark.parametrize("path", ["/ok", "/info"])
def test_health_and_info(client, path):
    assert client.get(path).status_code == 200


def test_demo_graph_covers_the_ircot_events_of_its_subgraph(client):
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    body = {**run_input("Search the web for Paris and the Seine"), "stream_subgraphs": True}
    response = client.post(f"/threads/{thread_id}/runs/stream", json=body)
    frames = parse_sse(response.text)
    custom = [d for e, d in frames if e.split("|")[0] == "custom"]  # "custom|ircot:..."
    kinds = [d["type"] for d in custom]
    assert kinds[kinds.index("route") + 1 :].count("ircot_step") >= 2
    assert kinds[-2:] == ["critique", "answer"]
    assert next(d for d in custom if d["type"] == "route")["route"] == "C"
    assert [d["step"] for d in custom if d["type"] == "ircot_step"] == [1, 2]
