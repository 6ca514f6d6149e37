"""Issue 36: no absolute server path leaves the server, in any streamed event or thread state.

The real graph runs over a real index (MiniLM embeddings, Chroma, BM25) of files ingested from
a folder and from the upload directory, with the demo's model and judges; every SSE frame of
runs on routes B, C and the web fallback, and the thread state, are scanned for paths.
"""

import json
import re
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from starlette.testclient import TestClient

from app.server.asgi import create_app
from app.server.demo_graph import DemoJudges, DemoModel
from app.server.runs import GraphService
from app.server.threads import ThreadRegistry
from graphs import build_graph
from graphs.event_examples import EXAMPLE_EVENTS
from models.judges_heuristic import HeuristicSupportChecker, HeuristicUsefulness
from stores.checkpoint import open_checkpointer
from stores.ingest import ingest
from stores.retrieval import make_retriever
from tests.unit.app.helpers import fake_ingest, parse_sse

pytestmark = pytest.mark.integration

_JSON_PATH = re.compile(r'"(/[^"/\s]+){2,}/?"')
"""A JSON string that is an absolute path."""
QUESTIONS = [
    "When was the Eiffel Tower finished?",  # route B, local passages
    "Where is the Eiffel Tower and what does chlorophyll absorb?",  # route C (IRCoT)
    "Who painted the Mona Lisa?",  # nothing relevant: CRAG's web fallback
]


def _graph(home: Path, saver):
    judges = DemoJudges()
    return build_graph(
        generator=DemoModel(delay=0.0),
        rewriter=DemoModel(delay=0.0),
        retriever=make_retriever(home=home),
        web_search=judges,
        classifier=judges,
        evaluator=judges,
        support=HeuristicSupportChecker(),
        usefulness=HeuristicUsefulness(),
        checkpointer=saver,
    )


def _corpus(tmp_path: Path, home: Path) -> list[Path]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "eiffel.md").write_text(
        "# Eiffel Tower\n\nThe Eiffel Tower is a lattice tower in Paris, finished in 1889.\n"
    )
    uploads = home / "uploads"
    uploads.mkdir(parents=True)
    (uploads / "plants.txt").write_text("Chlorophyll absorbs light in the leaves of plants.\n")
    return [docs, uploads / "plants.txt"]


def _source_types() -> set[str]:
    """Return the event types whose example carries a source or a URL."""
    return {
        kind
        for kind, event in EXAMPLE_EVENTS.items()
        if '"source"' in json.dumps(event) or '"url"' in json.dumps(event)
    }


def test_no_event_and_no_state_carries_an_absolute_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    report = ingest(_corpus(tmp_path, home), home=home, progress=False)
    assert report.added >= 2
    with open_checkpointer(home=home) as checkpointer:
        service = GraphService(_graph(home, InMemorySaver()), ThreadRegistry(checkpointer))
        app = create_app(service=service, home=home, ingest=fake_ingest)
        client = TestClient(app, base_url="http://127.0.0.1:8123")
        thread = client.post("/threads", json={}).json()["thread_id"]
        bodies, seen = [], set()
        for question in QUESTIONS:
            body = {
                "input": {"question": question},
                "stream_mode": ["updates", "custom", "values", "messages-tuple"],
            }
            text = client.post(f"/threads/{thread}/runs/stream", json=body).text
            bodies.append(text)
            seen |= {data["type"] for kind, data in parse_sse(text) if kind == "custom"}
        bodies.append(client.get(f"/threads/{thread}/state").text)
        bodies.append(client.get(f"/threads/{thread}/history?limit=50").text)
        sources = {
            c["source"] for c in client.get(f"/threads/{thread}/state").json()["values"]["passages"]
        }

    assert _source_types() <= seen, f"not exercised: {_source_types() - seen}"
    everything = "\n".join(bodies)
    assert str(tmp_path) not in everything
    assert not _JSON_PATH.findall(everything), _JSON_PATH.findall(everything)[:5]
    assert {"docs/eiffel.md", "uploads/plants.txt"} & sources  # display names, relative
