"""The run rules in front of another server: context allow-list and question length."""

import json

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from app.server.run_policy import RUN_PATH, RunPolicyMiddleware


async def _echo(request: Request) -> JSONResponse:
    return JSONResponse({"path": request.url.path, "body": json.loads(await request.body())})


@pytest.fixture
def client() -> TestClient:
    paths = ["/threads/{tid}/runs/stream", "/threads/{tid}/runs", "/runs/wait", "/threads"]
    paths += ["/assistants", "/assistants/{aid}", "/assistants/search"]
    inner = Starlette(routes=[Route(p, _echo, methods=["POST", "PATCH"]) for p in paths])
    return TestClient(RunPolicyMiddleware(inner, max_question_chars=20))


def _run(**fields) -> dict:
    return {"assistant_id": "acrag", "input": {"question": "Where is Paris?"}, **fields}


def test_allowed_run_reaches_the_server_unchanged(client):
    body = _run(context={"top_k": 3})
    answer = client.post("/threads/t1/runs/stream", json=body)
    assert answer.status_code == 200 and answer.json() == {
        "path": "/threads/t1/runs/stream",
        "body": body,
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (_run(context={"home": "/etc"}), "home"),
        (_run(context={"top_k": 10_000}), "top_k"),
        (_run(context="x"), "context must be an object"),
        (_run(config={"configurable": {"chroma_url": "http://x"}}), "chroma_url"),
        ({"input": {"question": "x" * 21}}, "the limit is 20"),
        ({"input": {"messages": [{"type": "human", "content": "y" * 21}]}}, "the limit is 20"),
    ],
)
def test_broken_rules_get_422_before_the_server(client, body, message):
    for path in ("/threads/t1/runs/stream", "/threads/t1/runs", "/runs/wait"):
        answer = client.post(path, json=body)
        assert answer.status_code == 422 and message in answer.json()["detail"], answer.text


def test_assistants_cannot_carry_server_settings(client):
    bad = {"graph_id": "acrag", "context": {"generator_model": "openai:x"}}
    assert client.post("/assistants", json=bad).status_code == 422
    assert (
        client.patch("/assistants/a1", json={"config": {"configurable": {"home": "/"}}}).status_code
        == 422
    )
    good = {"graph_id": "acrag", "context": {"top_k": 2}}
    assert client.post("/assistants", json=good).json()["body"] == good


def test_other_paths_are_not_checked(client):
    body = {"context": {"home": "/etc"}}
    assert client.post("/threads", json=body).json()["body"] == body
    assert client.post("/assistants/search", json=body).json()["body"] == body


def test_run_paths():
    runs = ["/runs", "/runs/batch", "/threads/a/runs/wait", "/runs/crons", "/threads/a/runs/crons"]
    assert all(RUN_PATH.match(p) for p in runs)
    assert not any(RUN_PATH.match(p) for p in ["/threads/a/runs/r1", "/threads/a/runs/r1/join"])
