"""Shared pytest set-up: everything under tests/integration carries the `integration` mark."""

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
