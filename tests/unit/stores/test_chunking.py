import pytest

from stores.chunking import chunk_text, content_hash, split_sentences, whitespace_token_counter


def test_split_sentences_at_ends_and_paragraph_breaks() -> None:
    text = 'First one. Second one!\n\nThird? "Quoted" fourth.\nSame line\nwrapped. e.g. lower'
    assert split_sentences(text) == [
        "First one.",
        "Second one!",
        "Third?",
        '"Quoted" fourth.',
        "Same line wrapped. e.g. lower",
    ]


def test_chunks_never_exceed_the_budget_and_keep_whole_sentences() -> None:
    sentences = [f"Sentence number {i} has six words." for i in range(20)]
    chunks = chunk_text(" ".join(sentences), chunk_tokens=20, overlap=0)
    assert all(len(c.split()) <= 20 for c in chunks)
    assert [s for c in chunks for s in split_sentences(c)] == sentences


def test_overlap_repeats_trailing_whole_sentences() -> None:
    text = " ".join(f"Alpha beta gamma delta {i}." for i in range(6))  # 5 words each
    chunks = chunk_text(text, chunk_tokens=10, overlap=5)
    assert len(chunks) == 5
    for previous, current in zip(chunks, chunks[1:], strict=False):
        assert split_sentences(current)[0] == split_sentences(previous)[-1]


def test_overlong_sentence_is_cut_at_words() -> None:
    words = [f"w{i}" for i in range(25)]
    chunks = chunk_text(" ".join(words) + ".", chunk_tokens=10, overlap=0)
    assert [len(c.split()) for c in chunks] == [10, 10, 5]
    assert " ".join(chunks).split() == [*words[:-1], words[-1] + "."]


def test_token_counter_is_used() -> None:
    calls: list[list[str]] = []

    def counting(texts: list[str]) -> list[int]:
        calls.append(list(texts))
        return [100 for _ in texts]

    chunks = chunk_text("One. Two. Three.", chunk_tokens=150, overlap=0, count_tokens=counting)
    assert chunks == ["One.", "Two.", "Three."]
    assert calls


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, 10), (10, -1)])
def test_bad_options_are_rejected(size: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        chunk_text("Text.", chunk_tokens=size, overlap=overlap)


def test_empty_text_gives_no_chunks() -> None:
    assert chunk_text("  \n\n ") == []
    assert whitespace_token_counter([]) == []


def test_content_hash_separates_parts() -> None:
    assert content_hash("ab", "c") != content_hash("a", "bc")
    assert content_hash("a", "b") == content_hash("a", "b")
