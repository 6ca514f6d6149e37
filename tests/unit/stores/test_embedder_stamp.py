"""An index records which MiniLM precision built it; an older float32 index keeps working."""

from pathlib import Path

import pytest

import models.embeddings as embeddings_module
import stores.ingest as ingest_module
from models.embeddings import MiniLMEmbeddings, default_precision
from stores.chunking import whitespace_token_counter
from stores.index import EMBEDDER_KEY, LEGACY_EMBEDDER, open_index, recorded_embedder
from stores.ingest import ingest


class FakeMiniLM:
    """Stands in for MiniLM: hashes words, records the precision it was asked for."""

    made: list[str] = []

    def __init__(self, *, precision: str | None = None) -> None:
        self.precision = precision or "bf16"  # this machine's default, as the real one picks
        self.name = f"minilm-l6-v2-{self.precision}"
        FakeMiniLM.made.append(precision or "default")

    @classmethod
    def from_name(cls, name: str) -> "FakeMiniLM | None":
        prefix, _, precision = name.rpartition("-")
        return cls(precision=precision) if prefix == "minilm-l6-v2" else None

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(len(t) % 7), 1.0, float(len(t.split()))] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


@pytest.fixture
def fake_minilm(monkeypatch: pytest.MonkeyPatch) -> type[FakeMiniLM]:
    FakeMiniLM.made = []
    monkeypatch.setattr(ingest_module, "MiniLMEmbeddings", FakeMiniLM)
    return FakeMiniLM


def _ingest(paths: list[Path], home: Path):
    return ingest(paths, home=home, progress=False, count_tokens=whitespace_token_counter)


def test_a_new_index_is_built_in_the_default_precision_and_says_so(
    tmp_path: Path, corpus: Path, fake_minilm
) -> None:
    report = _ingest([corpus], tmp_path / "home")
    assert fake_minilm.made == ["default"]
    assert recorded_embedder(open_index(home=tmp_path / "home").collection) == ("minilm-l6-v2-bf16")
    assert not any("float32" in note for _, note in report.notes)


def test_an_int8_index_keeps_int8_when_the_default_is_another(
    tmp_path: Path, corpus: Path, fake_minilm
) -> None:
    home = tmp_path / "home"
    _ingest([corpus / "paris.md"], home)
    open_index(home=home).collection.modify(metadata={EMBEDDER_KEY: "minilm-l6-v2-int8"})
    fake_minilm.made = []
    _ingest([corpus], home)
    assert fake_minilm.made == ["int8"]
    assert recorded_embedder(open_index(home=home).collection) == "minilm-l6-v2-int8"


def test_an_unstamped_index_with_chunks_stays_float32_and_tells_how_to_switch(
    tmp_path: Path, corpus: Path, fake_minilm
) -> None:
    home = tmp_path / "home"
    _ingest([corpus / "paris.md"], home)
    index = open_index(home=home)
    index.collection.modify(metadata={"chunker": "x"})  # as built before the stamp existed
    assert recorded_embedder(index.collection) == LEGACY_EMBEDDER
    fake_minilm.made = []
    report = _ingest([corpus], home)
    assert fake_minilm.made == ["fp32"]  # new chunks match the old vectors
    notes = [note for _, note in report.notes]
    assert any("float32" in n and "re-ingest" in n for n in notes)
    metadata = open_index(home=home).collection.metadata or {}
    assert metadata[EMBEDDER_KEY] == LEGACY_EMBEDDER and "chunker" in metadata


def test_queries_use_the_precision_the_index_records(tmp_path: Path, corpus: Path) -> None:
    home = tmp_path / "home"
    index = open_index(home=home)
    function = index.collection._embedding_function  # what Chroma embeds query_texts with
    assert function.embeddings.precision == default_precision()  # new and empty
    index.collection.modify(metadata={EMBEDDER_KEY: LEGACY_EMBEDDER})
    function = open_index(home=home).collection._embedding_function
    assert function.embeddings.precision == "fp32"


def test_embedder_names_round_trip_and_unknown_ones_are_refused() -> None:
    for precision in ("int8", "bf16", "fp32"):
        made = MiniLMEmbeddings.from_name(MiniLMEmbeddings(precision=precision).name)
        assert made is not None
        native = embeddings_module.bf16_native()
        assert made.precision == ("fp32" if precision == "bf16" and not native else precision)
    assert MiniLMEmbeddings.from_name("other-model-fp16") is None
    with pytest.raises(ValueError, match="unknown precision"):
        MiniLMEmbeddings(precision="fp16")  # type: ignore[arg-type]


def test_a_bf16_index_is_queried_in_fp32_on_a_cpu_without_bfloat16(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(embeddings_module, "bf16_native", lambda: False)
    made = MiniLMEmbeddings.from_name("minilm-l6-v2-bf16")
    assert made is not None and made.precision == "fp32"
    assert MiniLMEmbeddings().precision == "int8"
    monkeypatch.setattr(embeddings_module, "bf16_native", lambda: True)
    assert MiniLMEmbeddings().precision == "bf16"
