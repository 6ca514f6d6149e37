"""A compressed man page and Info manual, as /usr/share holds them, ingested and retrieved.

groff renders the page, the Info nodes lose their menus, the shipped MiniLM embeds both, and
the hybrid retriever finds the option entry under its heading path for a question in a
user's words.
"""

import gzip
from pathlib import Path

import pytest

from stores.ingest import ingest
from stores.retrieval import make_retriever

pytestmark = pytest.mark.integration

DATA = Path(__file__).parents[2] / "unit/stores/data"
PAGE = DATA / "frob.1"


def test_a_man_page_is_found_by_its_option_entry_with_its_heading_path(tmp_path: Path) -> None:
    docs = tmp_path / "man1"
    docs.mkdir()
    (docs / "frob.1.gz").write_bytes(gzip.compress(PAGE.read_bytes()))
    report = ingest([docs], home=tmp_path / "home", progress=False)
    assert report.files == 1 and not report.skipped
    retriever = make_retriever(home=tmp_path / "home", k=2)
    found = retriever.invoke("How do I stop frob from deleting my original files?")
    keep = [d for d in found if "--keep" in d.page_content]
    assert keep and keep[0].metadata["title"] == "frob(1) > OPTIONS"
    assert "keep (don't delete) the original files" in " ".join(keep[0].page_content.split())


def test_an_info_manual_is_found_by_its_option_entry_with_its_heading_path(tmp_path: Path) -> None:
    docs = tmp_path / "info"
    docs.mkdir()
    (docs / "frob.info.gz").write_bytes(gzip.compress((DATA / "frob.info").read_bytes()))
    ingest([docs], home=tmp_path / "home", progress=False)
    retriever = make_retriever(home=tmp_path / "home", k=2)
    found = retriever.invoke("How do I stop frob from deleting my original files?")
    keep = [d for d in found if "--keep" in d.page_content]
    assert keep and keep[0].metadata["title"].startswith("frob (info) > ")
    assert "1.1 Options" in keep[0].metadata["title"]
