"""The text toolkit shared by nodes, judges and training: sentences, strips and the lexicon.

Three sentence rules live here, each for a reason: `split_sentences` cuts the judges' evidence
windows exactly as their training pairs were cut; `split_strips` cuts refinement's knowledge
strips (a sentence may open with a bracket); `leading_sentence` reads IRCoT's one sentence
(initials and abbreviations do not end it). Merging the first two changes 1.8% of the
benchmark passages' splits, so it waits for a change that retrains and re-measures.
`nodes._guard` splits at tags too: its sentences are instructions, not prose.
"""

import re
from typing import Literal

__all__ = [
    "AUXILIARIES",
    "FUNCTION_WORDS",
    "claimed_words",
    "content_tokens",
    "leading_sentence",
    "split_sentences",
    "split_strips",
    "stems",
    "strip_markup",
]

AUXILIARIES = frozenset(
    "is are was were am be been being do does did has have had can could should would will "
    "shall may might must".split()
)
FUNCTION_WORDS = AUXILIARIES | frozenset(
    "a an the of in on at to for from by with about as into than since after before during "
    "and or but so if then also such not no yes one what which who whom whose when where why "
    "how that this these those there it its they their he she his her him i me my you your "
    "we our us".split()
)
"""The one function-word list: dropped from content words (`content_tokens`), and never the
start of a name (`models.names`)."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_STRIP_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
"""A strip's sentence ends before a capital or digit, perhaps after a quote or bracket."""
_LEADING = re.compile(r"^(.+?(?<!\b[A-Z])(?<!\b(?:Mr|Ms|Dr|St|Jr|Sr|vs|No))[.!?])(\s|$)")
"""A sentence ends at . ! or ?, but not after an initial ("Michael C. Hall") or abbreviation."""
_TOKEN = re.compile(r"[a-z0-9]+")
_TAG = re.compile(r"</?[A-Za-z][\w:-]*(\s[^<>]*)?/?>|<\|[^|<>]*\|>|\[/?(INST|SYS)\]")


def content_tokens(text: str) -> set[str]:
    """Return the lower-cased content words of `text` (stopwords dropped, plural 's' cut)."""
    tokens = set()
    for token in _TOKEN.findall(text.lower()):
        if token in FUNCTION_WORDS:
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


def split_strips(
    text: str, *, mode: Literal["sentences", "words", "passage"], sentences: int, words: int
) -> list[str]:
    """Split a passage into strips: groups of sentences, word windows, or the whole passage."""
    text = " ".join(text.split())
    if mode == "passage" or not text:
        return [text] if text else []
    if mode == "words":
        tokens = text.split()
        return [" ".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]
    parts = [s for s in _STRIP_END.split(text) if s.strip()]
    return [" ".join(parts[i : i + sentences]) for i in range(0, len(parts), sentences)]


def leading_sentence(line: str) -> str:
    """Return the first sentence of `line` (the whole line when none ends)."""
    match = _LEADING.match(line)
    return (match.group(1) if match else line).strip()
