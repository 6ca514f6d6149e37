"""The real int8 MiniLM: close to float32, truly quantized, stamped, and retrieving."""

from pathlib import Path

import numpy as np

from models.embeddings import MiniLMEmbeddings
from stores.index import EMBEDDER_KEY, open_index
from stores.ingest import ingest
from stores.retrieval import make_retriever

SAMPLE = Path(__file__).resolve().parents[3] / "app" / "sample_corpus" / "local"
TEXTS = [
    "Alan Turing worked at Bletchley Park on breaking German ciphers.",
    "The king cobra can deliver a fatal bite.",
]


def test_int8_vectors_are_quantized_yet_close_to_float32() -> None:
    full = np.asarray(MiniLMEmbeddings(precision="fp32").embed_documents(TEXTS))
    fast = np.asarray(MiniLMEmbeddings(precision="int8").embed_documents(TEXTS))
    cosines = (full * fast).sum(axis=1)
    assert np.all(cosines > 0.9)
    assert not np.allclose(full, fast, atol=1e-4)  # quantization really applied


def test_a_new_index_is_int8_stamped_and_finds_the_passage(tmp_path: Path) -> None:
    report = ingest([SAMPLE], home=tmp_path, progress=False)
    assert report.added >= 30
    metadata = open_index(home=tmp_path).collection.metadata or {}
    assert metadata[EMBEDDER_KEY] == "minilm-l6-v2-int8"
    docs = make_retriever(home=tmp_path, mode="dense", k=3).invoke(
        "Who cracked the Enigma code in World War 2?"
    )
    assert "Alan Turing" in [d.metadata["title"] for d in docs]
