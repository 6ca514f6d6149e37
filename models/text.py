"""Text utilities shared by nodes and judges: content words and the words an answer claims."""

import re

__all__ = ["claimed_words", "content_tokens", "split_sentences", "stems", "strip_markup"]

_STOPWORDS = frozenset(
    "a an the of in on at to for from by with and or but is are was were be been being do does "
    "did has have had what which who whom whose when where why how that this these those it its "
    "as into about than then there their they he she his her him i you your we our us me my not "
    "no yes so if can could would should will shall may might must one also such".split()
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_TOKEN = re.compile(r"[a-z0-9]+")
_TAG = re.compile(r"</?[A-Za-z][\w:-]*(\s[^<>]*)?/?>|<\|[^|<>]*\|>|\[/?(INST|SYS)\]")


def content_tokens(text: str) -> set[str]:
    """Return the lower-cased content words of `text` (stopwords dropped, plural 's' cut)."""
    tokens = set()
    for token in _TOKEN.findall(text.lower()):
        if token in _STOPWORDS:
            continue
        if len(token) > 4 and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        tokens.add(token)
    return tokens


def stems(words: set[str]) -> set[str]:
    """Return crude stems (the first five letters), so "cracked" meets "cracking"."""
    return {word[:5] for word in words}


def claimed_words(answer: str, question: str) -> set[str]:
    """Return what an answer claims: its content words not in the question (else all of them)."""
    return (content_tokens(answer) - content_tokens(question)) or content_tokens(answer)


def strip_markup(text: str) -> str:
    """Return `text` without HTML-like tags and chat-template tokens, spaces folded."""
    return " ".join(_TAG.sub(" ", text).split())


def split_sentences(text: str) -> list[str]:
    """Return the sentences of `text` (a full stop, ! or ? before a capital or digit ends one)."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]
