"""Fixtures for the HTTP app: a demo-graph server on a temporary home, and an SSE parser."""

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from app.server.asgi import create_app
from app.server.demo_graph import build_demo_graph
from app.server.runs import GraphService
from app.server.threads import ThreadRegistry
from stores.checkpoint import open_checkpointer
from tests.unit.app.helpers import fake_ingest

ClientFactory = Callable[..., TestClient]
BASE_URL = "http://127.0.0.1:8123"
"""The test client's origin: a loopback address, as `acrag serve` binds by default."""


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[ClientFactory]:
    """Return a factory of test clients sharing one home (a second call is a "restart")."""
    stack = ExitStack()

    def make(*, token: str | None = None, graph: Any = None, **app_options: Any) -> TestClient:
        checkpointer = stack.enter_context(open_checkpointer(home=tmp_path))
        if graph is None:
            compiled = build_demo_graph(
                checkpointer=checkpointer.saver, home=tmp_path, token_delay=0.0
            )
        else:
            compiled = graph(checkpointer.saver)
        timeout = app_options.pop("run_timeout_s", 300.0)
        service = GraphService(compiled, ThreadRegistry(checkpointer), run_timeout_s=timeout)
        app = create_app(
            service=service, home=tmp_path, token=token, **{"ingest": fake_ingest, **app_options}
        )
        return stack.enter_context(TestClient(app, base_url=BASE_URL))

    with stack:
        yield make


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    return make_client()
