"""The same ingest and retrieval behaviour against the embedded store and a Chroma server."""

from pathlib import Path

import pytest

from stores.ingest import ingest, remove_sources
from stores.retrieval import make_retriever

QUESTIONS = {
    "When was the Eiffel Tower finished?": "Eiffel Tower",
    "How do plants make sugar from sunlight?": "photosynthesis",
    "Which volcano is on the coast of Sicily?": "Mount Etna",
    "Which river flows through Budapest?": "Danube",
}


def top_title(store: dict, question: str, mode: str, k: int = 3) -> str:
    retriever = make_retriever(mode=mode, k=k, **store)  # type: ignore[arg-type]
    docs = retriever.invoke(question)
    assert len(docs) <= k
    assert [d.metadata["score"] for d in docs] == sorted(
        (d.metadata["score"] for d in docs), reverse=True
    )
    return str(docs[0].metadata["title"])


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_ingest_then_retrieve(store: dict, small_corpus: Path, mode: str) -> None:
    report = ingest([small_corpus], progress=False, **store)
    assert (report.files, report.added, report.total_chunks, report.skipped) == (4, 5, 5, [])
    for question, title in QUESTIONS.items():
        assert top_title(store, question, mode) == title


def test_reingest_change_and_remove(store: dict, small_corpus: Path) -> None:
    ingest([small_corpus], progress=False, **store)
    again = ingest([small_corpus], progress=False, **store)
    assert (again.added, again.unchanged, again.removed) == (0, 5, 0)

    (small_corpus / "etna.html").write_text(
        "<html><head><title>Mount Etna</title></head><body><p>Mount Etna erupted "
        "spectacularly in 2021 and remains closely monitored.</p></body></html>"
    )
    changed = ingest([small_corpus], progress=False, **store)
    assert (changed.added, changed.removed, changed.total_chunks) == (1, 1, 5)
    retriever = make_retriever(mode="hybrid", k=5, **store)
    texts = [d.page_content for d in retriever.invoke("Mount Etna Sicily volcano")]
    assert any("erupted spectacularly" in t for t in texts)
    assert not any("east coast of Sicily" in t for t in texts)

    removed = remove_sources([str(small_corpus / "passages.jsonl")], **store)
    assert removed == 2
    docs = make_retriever(mode="hybrid", k=5, **store).invoke("Which river flows through Budapest?")
    assert {d.metadata["title"] for d in docs} == {"Eiffel Tower", "photosynthesis", "Mount Etna"}
