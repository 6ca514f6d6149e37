from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from models.errors import UserError
from stores.chunking import whitespace_token_counter
from stores.index import open_index
from stores.ingest import IngestReport, ingest, remove_sources
from stores.retrieval import HybridRetriever


def run(paths: list[Path], home: Path, embeddings, **options) -> IngestReport:
    return ingest(
        paths,
        home=home,
        progress=False,
        embeddings=embeddings,
        count_tokens=whitespace_token_counter,
        **options,
    )


def bm25_titles(home: Path, embeddings, query: str) -> list[str]:
    index = open_index(home=home, embeddings=embeddings)
    retriever = HybridRetriever(index=index, k=5, mode="bm25")
    return [d.metadata["title"] for d in retriever.invoke(query)]


def test_reingesting_unchanged_files_adds_nothing(
    tmp_path: Path, corpus: Path, fake_embeddings
) -> None:
    first = run([corpus], tmp_path / "home", fake_embeddings)
    second = run([corpus], tmp_path / "home", fake_embeddings)
    assert (first.files, first.added, first.unchanged, first.total_chunks) == (3, 3, 0, 3)
    assert (second.added, second.unchanged, second.removed, second.total_chunks) == (0, 3, 0, 3)


def test_changed_file_replaces_its_chunks(tmp_path: Path, corpus: Path, fake_embeddings) -> None:
    home = tmp_path / "home"
    run([corpus], home, fake_embeddings)
    (corpus / "bananas.txt").write_text("Mangoes are orange fruits. They are sweet.\n")
    report = run([corpus], home, fake_embeddings)
    assert (report.added, report.removed, report.total_chunks) == (1, 1, 3)
    assert bm25_titles(home, fake_embeddings, "yellow tropics") == []
    assert bm25_titles(home, fake_embeddings, "mangoes") == ["bananas"]


def test_remove_source_drops_only_its_chunks(tmp_path: Path, corpus: Path, fake_embeddings) -> None:
    home = tmp_path / "home"
    run([corpus], home, fake_embeddings)
    assert remove_sources([str(corpus / "paris.md")], home=home) == 1
    assert remove_sources([str(corpus / "paris.md")], home=home) == 0
    assert bm25_titles(home, fake_embeddings, "Eiffel Tower Paris") == []
    assert bm25_titles(home, fake_embeddings, "Etna volcano") == ["Volcanoes"]


def test_chunks_carry_contract_metadata(tmp_path: Path, corpus: Path, fake_embeddings) -> None:
    home = tmp_path / "home"
    run([corpus], home, fake_embeddings)
    (doc,) = HybridRetriever(
        index=open_index(home=home, embeddings=fake_embeddings), k=1, mode="bm25"
    ).invoke("Etna")
    meta = doc.metadata
    assert meta["source"] == f"{corpus.name}/volcano.html"  # shown without the server's path
    assert (meta["title"], meta["position"], meta["origin"]) == ("Volcanoes", 0, "local")
    assert len(meta["hash"]) == 64 and len(meta["id"]) == 32 and meta["score"] > 0
    assert doc.page_content == "Mount Etna is an active volcano in Sicily."


def test_bad_files_are_reported_and_nothing_indexed_is_lost(
    tmp_path: Path, corpus: Path, fake_embeddings, pdf_bytes
) -> None:
    home = tmp_path / "home"
    run([corpus], home, fake_embeddings)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.md").write_text("")
    (bad / "binary.txt").write_bytes(b"\x00\x01\x02" * 100)
    (bad / "locked.pdf").write_bytes(pdf_bytes[1]("Secret."))
    (bad / "good.txt").write_text("Kiwis are small brown fruits.")
    report = run([bad, tmp_path / "nope.txt"], home, fake_embeddings)
    reasons = {Path(path).name: reason for path, reason in report.skipped}
    assert set(reasons) == {"empty.md", "binary.txt", "locked.pdf", "nope.txt"}
    assert report.files == 1 and report.added == 1 and report.total_chunks == 4
    assert "4 skipped" in report.summary()


def test_killed_run_leaves_usable_index_and_rerun_completes(tmp_path: Path) -> None:
    home, docs = tmp_path / "home", tmp_path / "many"
    docs.mkdir()
    for i in range(6):
        (docs / f"doc{i}.txt").write_text(f"Document {i} mentions topic{i} only.")

    class Dies(DeterministicFakeEmbedding):
        calls: int = 0

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            self.calls += 1
            if self.calls > 1:
                raise KeyboardInterrupt
            return super().embed_documents(texts)

    with pytest.raises(KeyboardInterrupt):
        run([docs], home, Dies(size=16), batch_size=2)
    healthy = DeterministicFakeEmbedding(size=16)
    assert set(bm25_titles(home, healthy, "topic0 topic1 topic5")) == {"doc0", "doc1"}
    report = run([docs], home, healthy)
    assert (report.added, report.unchanged, report.total_chunks) == (4, 2, 6)
    assert set(bm25_titles(home, healthy, "topic0 topic5")) == {"doc0", "doc5"}


def test_bad_chunk_options_are_user_errors(tmp_path: Path, corpus: Path, fake_embeddings) -> None:
    with pytest.raises(UserError):
        run([corpus], tmp_path / "home", fake_embeddings, chunk_tokens=10, overlap=10)


def test_long_lived_retriever_sees_later_changes(
    tmp_path: Path, corpus: Path, fake_embeddings
) -> None:
    home = tmp_path / "home"
    run([corpus], home, fake_embeddings)
    retriever = HybridRetriever(
        index=open_index(home=home, embeddings=fake_embeddings), k=3, mode="bm25"
    )
    assert [d.metadata["title"] for d in retriever.invoke("yellow tropics")] == ["bananas"]
    (corpus / "bananas.txt").write_text("Mangoes are orange fruits.\n")
    assert run([corpus], home, fake_embeddings).total_chunks == 3  # same count, new content
    assert retriever.invoke("yellow tropics") == []
    assert [d.metadata["title"] for d in retriever.invoke("mangoes")] == ["bananas"]
