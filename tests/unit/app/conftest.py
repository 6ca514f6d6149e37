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
        service = GraphService(compiled, ThreadRegistry(checkpointer))
        app = create_app(
            service=service, home=tmp_path, token=token, **{"ingest": fake_ingest, **app_options}
        )
        return stack.enter_context(TestClient(app))

    with stack:
        yield make


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    return make_client()
