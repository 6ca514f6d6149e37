"""The real fast MiniLMs (int8, OpenVINO bf16): close to float32, stamped, and retrieving."""

from pathlib import Path

import numpy as np
import pytest

from models.embeddings import MiniLMEmbeddings, bf16_native, default_precision
from models.openvino_minilm import OpenVinoMiniLM
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


@pytest.mark.skipif(not bf16_native(), reason="this CPU has no native bfloat16")
def test_openvino_bf16_matches_float32_and_reuses_its_saved_model(tmp_path: Path) -> None:
    full = MiniLMEmbeddings(precision="fp32")
    texts = [*TEXTS, "short", " ".join(["a long passage about ciphers"] * 80)]  # truncated
    expected = full.encode(texts)
    made = OpenVinoMiniLM(full.model, tmp_path / "ir")
    assert (tmp_path / "ir" / "model.xml").is_file()
    again = OpenVinoMiniLM(full.model, tmp_path / "ir")  # read back, not converted
    for encoder in (made, again):
        vectors = encoder.encode(texts, batch_size=3)  # two batches, longest first
        assert vectors.shape == (4, 384)
        assert np.all((vectors * expected).sum(axis=1) > 0.999)  # in the texts' order
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_new_index_is_stamped_and_finds_the_passage(tmp_path: Path) -> None:
    report = ingest([SAMPLE], home=tmp_path, progress=False)
    assert report.added >= 30
    metadata = open_index(home=tmp_path).collection.metadata or {}
    assert metadata[EMBEDDER_KEY] == f"minilm-l6-v2-{default_precision()}"
    docs = make_retriever(home=tmp_path, mode="dense", k=3).invoke(
        "Who cracked the Enigma code in World War 2?"
    )
    assert "Alan Turing" in [d.metadata["title"] for d in docs]
