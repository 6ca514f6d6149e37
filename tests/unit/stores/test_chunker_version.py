"""An index cut by an older chunker says so, and re-ingesting migrates it."""

from pathlib import Path

from stores.chunking import whitespace_token_counter
from stores.index import open_index, reingest_needed
from stores.ingest import ingest


def _run(paths: list[Path], home: Path, embeddings) -> list[str]:
    report = ingest(
        paths,
        home=home,
        progress=False,
        embeddings=embeddings,
        count_tokens=whitespace_token_counter,
    )
    return [note for _, note in report.notes]


def test_legacy_chunks_need_reingest_until_the_files_are_ingested_again(
    tmp_path: Path, corpus: Path, fake_embeddings
) -> None:
    home = tmp_path / "home"
    _run([corpus], home, fake_embeddings)
    index = open_index(home=home, embeddings=fake_embeddings)
    assert reingest_needed(index) is None
    old = index.collection.get(include=["metadatas", "documents", "embeddings"])
    metas = [{k: v for k, v in m.items() if k != "chunker"} for m in old["metadatas"]]
    index.collection.upsert(
        ids=[f"old{i}" for i in range(len(metas))],
        documents=old["documents"],
        metadatas=metas,
        embeddings=old["embeddings"],
    )
    index.collection.delete(ids=old["ids"])
    index.collection.modify(metadata={"chunker": "before"})
    assert "re-ingest needed" in (reingest_needed(index) or "")
    notes = _run([corpus / "paris.md"], home, fake_embeddings)
    assert any("re-ingest needed" in n for n in notes)  # the other files are still old
    assert "re-ingest needed" in (reingest_needed(open_index(home=home)) or "")
    assert not any("re-ingest" in n for n in _run([corpus], home, fake_embeddings))
    assert reingest_needed(open_index(home=home)) is None
