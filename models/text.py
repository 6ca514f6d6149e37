"""The text toolkit shared by stores, nodes, judges and training: sentences, strips, lexicon.

One function cuts sentences, `split_sentences`, with two named rules:

- `prose` (the default): a full stop, ! or ? before a capital, digit, quote or bracket ends a
  sentence. The judges' evidence windows, refinement's strips and every training pair are cut
  by it (refinement's strips used a slightly different rule until it was measured: see
  docs/judges.md, "One sentence rule").
- `chunks`: the index's chunker (`stores.chunking`): blank lines end a sentence too, spaces are
  folded, and closing quotes or brackets after the stop are dropped. It stays apart because the
  chunks' text and ids are built from it: changing it re-indexes every corpus.

`leading_sentence` reads IRCoT's one sentence (initials and abbreviations do not end it);
`nodes._guard` splits at tags too: its sentences are instructions, not prose.
"""

import re
from typing import Literal

__all__ = [
    "AUXILIARIES",
    "FUNCTION_WORDS",
    "SentenceRule",
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
SentenceRule = Literal["prose", "chunks"]
_SENTENCE_ENDS: dict[SentenceRule, re.Pattern[str]] = {
    "prose": re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])"),
    "chunks": re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[A-Z0-9])"),
}
_PARAGRAPH = re.compile(r"\n\s*\n")
_SPACE = re.compile(r"\s+")
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


def split_sentences(text: str, *, rule: SentenceRule = "prose") -> list[str]:
    """Return the sentences of `text` by `rule` (see the module docstring)."""
    if rule == "prose":
        return [s.strip() for s in _SENTENCE_ENDS["prose"].split(text.strip()) if s.strip()]
    sentences: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        flat = _SPACE.sub(" ", paragraph).strip()  # no list of every word of a long line
        if flat:
            sentences.extend(part for part in _SENTENCE_ENDS["chunks"].split(flat) if part.strip())
    return sentences


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
    parts = split_sentences(text)
    return [" ".join(parts[i : i + sentences]) for i in range(0, len(parts), sentences)]


def leading_sentence(line: str) -> str:
    """Return the first sentence of `line` (the whole line when none ends)."""
    match = _LEADING.match(line)
    return (match.group(1) if match else line).strip()
