"""Fixtures for the graph's integration tests: the sample corpus ingested once per session."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "app" / "sample_corpus"


@pytest.fixture(scope="session")
def sample_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a home with the sample corpus as the local index and its web corpus ingested."""
    from stores.ingest import ingest
    from stores.web import LOCAL_WEB_COLLECTION

    home = tmp_path_factory.mktemp("sample-home")
    local = ingest([SAMPLE / "local"], home=home, progress=False)
    web = ingest([SAMPLE / "web"], home=home, collection=LOCAL_WEB_COLLECTION, progress=False)
    assert local.total_chunks >= 30 and web.total_chunks >= 5
    return home
