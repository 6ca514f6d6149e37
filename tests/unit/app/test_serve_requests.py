"""Issue 18, points 1, 2, 4 and 5: what a client may send, checked before anything starts."""

from typing import Any, TypedDict

import pytest
from langgraph.graph import START, StateGraph
from langgraph.runtime import get_runtime

from app.server.limits import ServerLimits
from tests.unit.app.helpers import parse_sse, run_input

SEEN: list[dict[str, Any]] = []


class _S(TypedDict, total=False):
    question: str


def _recording_graph(saver: Any) -> Any:
    """A one-node graph that records the context each run receives."""

    def record(state: _S) -> dict[str, Any]:
        SEEN.append(dict(get_runtime().context or {}))
        return {}

    builder = StateGraph(_S)
    builder.add_node("record", record)
    builder.add_edge(START, "record")
    return builder.compile(checkpointer=saver)


def _run(client, thread_id: str, **extra: Any):
    return client.post(f"/threads/{thread_id}/runs/stream", json={**run_input(), **extra})


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"home": "/tmp/other-home"}, "context.home is set by the server"),
        ({"chroma_url": "http://169.254.169.254/"}, "context.chroma_url is set by the server"),
        ({"generator_model": "gguf:/etc/passwd"}, "context.generator_model is set by"),
        ({"collection": "secrets"}, "context.collection is set by the server"),
        ({"max_question_chars": 300000}, "context.max_question_chars is set by"),
        ({"surprise": 1}, "unknown context field 'surprise'"),
        ({"top_k": 10**9}, "context.top_k must be an integer from 1 to 10"),
        ({"top_k": True}, "context.top_k must be an integer"),
        ({"web_backend": "tavily"}, "context.web_backend must be one of"),
        ({"upper_threshold": 7}, "context.upper_threshold must be a number from -1 to 1"),
        ({"lower_threshold": 0.5, "upper_threshold": 0.1}, "must not exceed"),
        ([1], "context must be an object"),
    ],
)
def test_run_context_outside_the_allow_list_is_a_422(make_client, context, message):
    client = make_client(graph=_recording_graph)
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    SEEN.clear()
    response = _run(client, thread_id, context=context)
    assert response.status_code == 422 and message in response.json()["detail"]
    assert SEEN == []  # nothing ran
    assert client.post("/threads/search", json={}).json()[0]["status"] == "idle"


def test_allowed_context_reaches_the_graph_over_the_server_defaults(make_client):
    client = make_client(graph=_recording_graph)
    client.app.state.service.default_context = {"home": "/srv/acrag", "top_k": 4}
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    SEEN.clear()
    context = {"route": "B", "top_k": 6, "reflect": False, "upper_threshold": 0.2}
    assert _run(client, thread_id, context=context).status_code == 200
    assert SEEN == [{"home": "/srv/acrag", **context}]


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/threads", {"thread_id": {"a": 1}}, 422),
        ("/threads", {"thread_id": "../x"}, 422),
        ("/threads", {"metadata": "abc"}, 422),
        ("/threads/search", {"limit": 1e308}, 422),
        ("/threads/search", {"offset": -1}, 422),
        ("/threads/search", {"limit": "all"}, 422),
    ],
)
def test_malformed_fields_are_a_clear_4xx_not_a_500(client, path, body, status):
    response = client.post(path, json=body)
    assert response.status_code == status and response.json()["detail"]


@pytest.mark.parametrize(
    "extra",
    [
        {"stream_mode": 5},
        {"stream_mode": []},
        {"config": [1]},
        {"config": {"configurable": {"__pregel_read": 1}}},
        {"input": [1]},
        {"metadata": "abc"},
        {"if_not_exists": "maybe"},
    ],
)
def test_malformed_run_requests_are_refused_and_leave_the_thread_idle(client, extra):
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    assert _run(client, thread_id, **extra).status_code == 422
    assert client.post("/threads/search", json={}).json()[0]["status"] == "idle"
    assert _run(client, thread_id).status_code == 200  # and later runs work


def test_deeply_nested_json_is_refused(client):
    for depth in (40, 100_000):
        body = b'{"metadata": ' + b"[" * depth + b"]" * depth + b"}"
        response = client.post(
            "/threads", content=body, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 422 and "nests deeper" in response.json()["detail"]


def test_json_is_accepted_only_as_application_json(client):
    body = b'{"metadata": {"title": "x"}}'
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {"Content-Type": content_type} if content_type else {}
        assert client.post("/threads", content=body, headers=headers).status_code == 415
    ok = client.post("/threads", content=body, headers={"Content-Type": "application/json"})
    assert ok.status_code == 200


def test_request_bodies_over_the_limit_get_413(make_client):
    client = make_client(limits=ServerLimits(max_body_mb=0.01))
    big = {"metadata": {"pad": "x" * 20_000}}
    assert client.post("/threads", json=big).status_code == 413


def test_question_length_is_capped_by_the_server(make_client):
    client = make_client(limits=ServerLimits(max_question_chars=50))
    thread_id = client.post("/threads", json={}).json()["thread_id"]
    long = "why " * 100
    response = client.post(f"/threads/{thread_id}/runs/stream", json=run_input(long))
    assert response.status_code == 422 and "the limit is 50" in response.json()["detail"]
    raised = {**run_input(long), "context": {"max_question_chars": 10**6}}
    assert client.post(f"/threads/{thread_id}/runs/stream", json=raised).status_code == 422
    response = client.post(f"/threads/{thread_id}/runs/stream", json=run_input("Short?"))
    assert response.status_code == 200 and parse_sse(response.text)[-1][0] != "error"


def test_cross_site_requests_and_foreign_hosts_are_refused(client):
    evil = {"Origin": "http://evil.example"}
    assert client.post("/threads", json={}, headers=evil).status_code == 403
    upload = client.post("/acrag/upload", files={"files": ("a.txt", b"x")}, headers=evil)
    assert upload.status_code == 403
    assert client.post("/threads", json={}, headers={"Origin": "null"}).status_code == 403
    rebound = {"Host": "attacker.example:8123"}
    assert client.get("/threads/x/state", headers=rebound).status_code == 403
    assert client.get("/ui/", headers=rebound).status_code == 403
    same = {"Origin": "http://127.0.0.1:8123"}
    assert client.post("/threads", json={}, headers=same).status_code == 200
    for host in ("localhost:8123", "[::1]:8123", "192.168.1.20:8123", "app.localhost"):
        assert client.get("/ok", headers={"Host": host}).status_code == 200


def test_extra_hosts_and_origins_are_configurable(make_client):
    client = make_client(allowed_hosts=["acrag.lan"], allowed_origins=["https://tools.lan"])
    assert client.get("/ok", headers={"Host": "acrag.lan"}).status_code == 200
    headers = {"Origin": "https://tools.lan"}
    assert client.post("/threads", json={}, headers=headers).status_code == 200
