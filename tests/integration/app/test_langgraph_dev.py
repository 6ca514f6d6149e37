"""The page and upload app mounted into `langgraph dev`, and runs streamed through its real API."""

import json
import sys
from pathlib import Path

import httpx
import pytest

from tests.integration.app.conftest import ARTIFACTS, REPO, Server, free_port

LANGGRAPH = str(Path(sys.executable).parent / "langgraph")
QUESTION = "What is the capital of France?"


def _langgraph_dev(config: Path, home: Path, log: Path, *, cwd: Path) -> Server:
    """Start `langgraph dev` in `cwd` (where it keeps its `.langgraph_api` store)."""
    port = free_port()
    command = [
        LANGGRAPH,
        "dev",
        "--config",
        str(config),
        "--port",
        str(port),
        "--no-browser",
        "--no-reload",
    ]
    home.mkdir(parents=True, exist_ok=True)
    return Server(command, home=home, port=port, log=log, cwd=cwd)


@pytest.fixture
def dev_repo(tmp_path: Path):
    """`langgraph dev` on the repository's own langgraph.json (the real graph)."""
    server = _langgraph_dev(
        REPO / "langgraph.json", tmp_path / "home", tmp_path / "dev.log", cwd=REPO
    )
    yield server
    server.stop()


@pytest.fixture
def dev_demo(tmp_path: Path):
    """`langgraph dev` serving the demo graph with the same mounted app."""
    config = tmp_path / "langgraph.json"
    config.write_text(
        json.dumps(
            {
                "dependencies": [str(REPO)],
                "graphs": {"acrag": str(REPO / "app/server/demo_graph.py") + ":graph"},
                "http": {"app": "app.server.asgi:app"},
            }
        )
    )
    # run from the temporary folder: a fresh thread store, no threads from earlier runs
    server = _langgraph_dev(config, tmp_path / "home", tmp_path / "dev-demo.log", cwd=tmp_path)
    yield server
    server.stop()


def test_mounted_app_and_real_graph_run_under_langgraph_dev(dev_repo):
    page = httpx.get(f"{dev_repo.url}/ui/")
    assert page.status_code == 200 and 'id="question"' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert httpx.post(f"{dev_repo.url}/acrag/upload", data={"x": "1"}).status_code == 400
    assert httpx.get(f"{dev_repo.url}/ok").status_code == 200  # langgraph's own routes remain
    docs = httpx.get(f"{dev_repo.url}/docs")  # its docs page keeps its CDN scripts working
    assert docs.status_code == 200 and "content-security-policy" not in docs.headers
    doc = ("paris.txt", b"Paris is the capital and largest city of France.", "text/plain")
    upload = httpx.post(f"{dev_repo.url}/acrag/upload", files={"files": doc}, timeout=180)
    phases = [json.loads(line)["phase"] for line in upload.text.splitlines()]
    assert phases == ["saved", "indexing", "indexed", "done"], upload.text

    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=dev_repo.url)
    thread = client.threads.create()
    events = list(
        client.runs.stream(
            thread["thread_id"],
            "acrag",
            input={"question": QUESTION, "messages": [{"type": "human", "content": QUESTION}]},
            stream_mode=["updates", "custom", "messages-tuple"],
        )
    )
    kinds = [part.event for part in events]
    assert kinds[0] == "metadata" and "error" not in kinds, events[-1]
    custom = [part.data["type"] for part in events if part.event == "custom"]
    assert custom[:2] == ["question", "route"] and custom[-1] == "answer"
    assert {"retrieval", "crag_action", "critique"} <= set(custom)
    retrieval = next(
        p.data for p in events if p.event == "custom" and p.data["type"] == "retrieval"
    )
    # shown relative to the data home: no server path leaves the server (docs/security.md)
    assert [p["source"] for p in retrieval["passages"]][:1] == ["uploads/paris.txt"]
    assert "updates" in kinds and "messages" in kinds
    state = client.threads.get_state(thread["thread_id"])
    assert state["values"]["answer"]
    assert [m["type"] for m in state["values"]["messages"]] == ["human", "ai"]


def test_page_works_against_the_langgraph_api(dev_demo, page):
    page.goto(f"{dev_demo.url}/ui/")
    page.wait_for_selector("body[data-ready=true]")
    page.fill("#question", QUESTION)
    page.click("#ask")
    page.locator(".turn[data-done=true]").wait_for(timeout=30_000)
    kinds = page.locator(".step").evaluate_all("(nodes) => nodes.map((n) => n.dataset.type)")
    assert kinds[:6] == ["question", "route", "retrieval", "grades", "crag_action", "strips"]
    assert kinds[-2:] == ["critique", "answer"]  # CRAG may search the (demo) web in between
    assert page.evaluate("window.acragTimings[0].firstToken") is not None  # tokens streamed
    page.locator(".answer-text .cite").first.click()
    assert "Paris is the capital" in page.locator("#card-text").inner_text()
    page.locator("#thread-list button", has_text=QUESTION).wait_for()
    page.screenshot(path=str(ARTIFACTS / "langgraph-dev-page.png"), full_page=True)
    assert page.errors == []
