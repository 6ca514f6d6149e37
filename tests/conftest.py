"""Shared pytest set-up: everything under tests/integration carries the `integration` mark."""

import os
from pathlib import Path

import pytest

_INTEGRATION = Path(__file__).parent / "integration"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _INTEGRATION in Path(item.fspath).parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Keep every test away from the user's real data directory."""
    monkeypatch.setenv("ACRAG_HOME", str(tmp_path_factory.mktemp("acrag-home")))


@pytest.fixture(autouse=True)
def _restored_umask():
    """`acrag serve` and `acrag ingest` set a private umask for their process; a test that
    runs them in-process must not leave it to the tests after it."""
    before = os.umask(0o022)
    os.umask(before)
    yield
    os.umask(before)
