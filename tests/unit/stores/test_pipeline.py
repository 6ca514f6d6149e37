"""Ingestion helpers: reading ahead in a thread, de-duplicated embedding, honest progress."""

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from stores.pipeline import DedupEmbedder, read_ahead
from stores.progress import IngestProgress


class CountingEmbeddings(DeterministicFakeEmbedding):
    seen: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.seen.extend(texts)
        return super().embed_documents(texts)


def test_read_ahead_keeps_order_and_raises_the_workers_error_in_place() -> None:
    assert list(read_ahead(range(20), lambda n: n * n, depth=3)) == [n * n for n in range(20)]

    def fail_on_three(n: int) -> int:
        if n == 3:
            raise OSError("disk went away")
        return n

    got = []
    with pytest.raises(OSError, match="disk went away"):
        for value in read_ahead(range(10), fail_on_three, depth=2):
            got.append(value)
    assert got == [0, 1, 2]


def test_dedup_embedder_embeds_each_distinct_text_once_and_returns_one_vector_each() -> None:
    embeddings = CountingEmbeddings(size=8)
    embeddings.seen = []
    embed = DedupEmbedder(embeddings)
    first = embed(["licence footer", "intro", "licence footer"])
    second = embed(["licence footer", "chapter two"])
    assert embeddings.seen == ["licence footer", "intro", "chapter two"]
    assert embed.embedded == 3
    assert first[0] == first[2] == second[0]
    assert first[0] == pytest.approx(embeddings.embed_query("licence footer"))
    assert len(first) == 3 and len(second) == 2


def test_progress_estimates_the_total_from_bytes_read_until_every_file_is_read() -> None:
    bar = IngestProgress(enabled=False, files=4, total_bytes=1000)
    bar.read(size=250, new_chunks=10)
    assert bar.estimated_total == 40  # a quarter of the bytes gave 10 chunks
    bar.stored(10)
    bar.read(size=250, new_chunks=30)
    assert bar.estimated_total == 80
    bar.read(size=250, new_chunks=0)
    bar.read(size=250, new_chunks=0)  # the last file: the total is now exact
    assert bar.estimated_total == 40
    bar.close()


@pytest.mark.parametrize(("enabled", "drawn"), [(None, False), (True, True), (False, False)])
def test_progress_is_drawn_on_a_terminal_or_on_request(capsys, enabled, drawn) -> None:
    bar = IngestProgress(enabled=enabled, files=1, total_bytes=10)  # pytest's stderr is no tty
    bar.read(size=10, new_chunks=3)
    bar.stored(3)
    bar.close()
    assert ("3/3" in capsys.readouterr().err) is drawn
