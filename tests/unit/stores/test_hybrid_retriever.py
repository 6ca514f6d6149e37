from pathlib import Path

import pytest
from langchain_core.documents import Document

from stores.index import open_index
from stores.lexical import LexicalIndex, Record
from stores.retrieval import HybridRetriever, make_retriever, reciprocal_rank_fusion


def test_rrf_rewards_agreement() -> None:
    scores = reciprocal_rank_fusion([["a", "b", "c"], ["b", "c", "d"]], k=60)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert max(scores, key=scores.__getitem__) == "b"
    assert scores["d"] == pytest.approx(1 / 63)


def doc(id_: str, score: float) -> Document:
    return Document(
        page_content=id_, metadata={"id": id_, "title": id_, "position": 0, "score": score}
    )


def test_hybrid_fuses_dense_and_bm25_rankings(tmp_path: Path, fake_embeddings, monkeypatch) -> None:
    retriever = HybridRetriever(index=open_index(home=tmp_path, embeddings=fake_embeddings), k=2)
    monkeypatch.setattr(HybridRetriever, "dense", lambda self, q, n: [doc("a", 0.9), doc("b", 0.8)])
    monkeypatch.setattr(
        HybridRetriever, "lexical", lambda self, q, n: [doc("b", 7.0), doc("c", 5.0)]
    )
    found = retriever.invoke("anything")
    assert [d.metadata["id"] for d in found] == ["b", "a"]
    assert found[0].metadata["score"] == pytest.approx(1 / 62 + 1 / 61)
    assert all(d.metadata["origin"] == "local" for d in found)


def test_empty_store_and_blank_query_return_nothing(tmp_path: Path, fake_embeddings) -> None:
    index = open_index(home=tmp_path, embeddings=fake_embeddings)
    for mode in ("dense", "bm25", "hybrid"):
        assert HybridRetriever(index=index, mode=mode).invoke("question") == []
    assert HybridRetriever(index=index).invoke("   ") == []


def test_unknown_mode_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        make_retriever(home=tmp_path, mode="sparse")  # type: ignore[arg-type]


def test_lexical_index_round_trip_and_freshness(tmp_path: Path) -> None:
    records = [
        Record("1", "The Nile is a river in Africa.", {"title": "Nile"}),
        Record("2", "Everest is the highest mountain.", {"title": "Everest"}),
    ]
    index = LexicalIndex(tmp_path / "bm25")
    assert not index.is_fresh(0)
    index.build(records)
    index.save()
    assert index.is_fresh(2) and not index.is_fresh(3)
    index.mark_dirty()
    assert not index.is_fresh(2)
    loaded = LexicalIndex(tmp_path / "bm25")
    assert loaded.load()
    hits = loaded.search("highest mountain", k=5)
    assert [h.record.id for h in hits] == ["2"] and hits[0].score > 0
    assert loaded.search("the of", k=5) == []
    assert loaded.search("Nile", k=0) == []


def test_a_home_given_as_text_is_a_path(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    retriever = make_retriever(home="~/data", mode="bm25")
    assert retriever.invoke("question") == []  # an empty index under ~/data, not a TypeError
    assert (tmp_path / "data").is_dir()
