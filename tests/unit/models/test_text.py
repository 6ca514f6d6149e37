"""The one text toolkit: one sentence function with its two named rules, strips cut by it."""

from pathlib import Path

from models.text import FUNCTION_WORDS, content_tokens, split_sentences, split_strips

ROOT = Path(__file__).resolve().parents[3]
TEXT = 'It rained. (The match went on.) "Stop." he said. [1] Then\n\nthe end.'


def test_the_prose_rule_ends_a_sentence_only_right_after_its_stop():
    assert split_sentences(TEXT) == [
        "It rained.",
        '(The match went on.) "Stop." he said. [1] Then\n\nthe end.',
    ]


def test_the_chunks_rule_also_breaks_at_blank_lines_and_drops_closing_brackets():
    assert split_sentences(TEXT, rule="chunks") == [
        "It rained.",
        "(The match went on.",
        '"Stop." he said.',
        "[1] Then",
        "the end.",
    ]


def test_strips_are_cut_by_the_prose_rule():
    strips = split_strips(TEXT, mode="sentences", sentences=1, words=0)
    assert strips == [" ".join(s.split()) for s in split_sentences(" ".join(TEXT.split()))]


def test_content_words_drop_the_function_words():  # and a plural "s": Paris -> pari
    assert content_tokens("What happened after the storms in Paris?") == {
        "happened",
        "storm",
        "pari",
    }
    assert "after" in FUNCTION_WORDS and "name" not in FUNCTION_WORDS


def test_sentence_regexes_live_only_in_the_text_toolkit():
    """No second copy of a sentence-end rule (the prompt guard splits instructions at tags)."""
    allowed = {Path("models/text.py"), Path("nodes/_guard.py")}
    packages = ("app", "bench", "graphs", "models", "nodes", "prompts", "stores", "training")
    copies = sorted(
        str(path.relative_to(ROOT))
        for package in packages
        for path in (ROOT / package).rglob("*.py")
        if "(?<=[.!?])" in path.read_text(encoding="utf-8")
        and path.relative_to(ROOT) not in allowed
    )
    assert copies == []
