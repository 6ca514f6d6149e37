"""Answer option, key and value questions with a token the kept strips hold.

The reader does not write the token. The kept strips are split into entries (one option of
a `--help` list, one term of a definition list, with its own description; `_doc_entries`),
each entry whose head holds a token of the asked kind becomes one choice, shown with its
description only; a strip with no entries offers the tokens its sentences mention. The
model picks one through a schema-constrained choice, the token is checked to occur in its
strip, and the answer is a short sentence built around it, citing that strip. Anything
else (no such question, no candidates, "none of these") leaves the question to the reader.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from langchain_core.language_models import BaseChatModel

from graphs.state import Strip
from models.judges_llm import ask_choice
from nodes._doc_entries import split_entries
from prompts.framing import as_data
from prompts.token_answer import CHOOSE_TOKEN, NO_TOKEN

__all__ = ["Choice", "TokenAnswer", "answer_with_token", "asked_kind", "token_candidates"]

Kind = Literal["option", "key", "value"]
_MAX_CHOICES = 20
_TITLE_CHARS = 40

_ASKS: list[tuple[Kind, re.Pattern[str]]] = [
    ("option", re.compile(r"\b(option|flag|switch)s?\b|^\s*how (do|can|would|should) i\b", re.I)),
    ("key", re.compile(r"\benvironment variables?\b|\bconfig(uration)? (key|setting)s?\b", re.I)),
    ("value", re.compile(r"\bexit (status|code)\b|\breturn code\b", re.I)),
]
_OPTION = re.compile(r"(?<![\w/-])--?[A-Za-z0-9][\w-]*(?:=[\w\[\]+.:/-]+)?")
_FINDERS: dict[Kind, re.Pattern[str]] = {
    "option": _OPTION,
    "key": re.compile(r"(?<![\w$-])\$?([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{4}[A-Z0-9]{4,})\b"),
    "value": re.compile(r"^(\d{1,4})$"),
}
_PROSE_FINDERS: dict[Kind, re.Pattern[str]] = {
    "option": re.compile(rf"{_OPTION.pattern}|\b([a-z]+(?:_[a-z]+)+)\b|(?<=[(,] )([a-z]+)=(?!=)"),
    "key": _FINDERS["key"],
}
_TERM = re.compile(r"^[A-Za-z]{1,2}$")
_ARGUMENT = re.compile(r"[=\[].*$")
_SENTENCE = re.compile(r"(?<=[.!?:])\s+|\n")


@dataclass(frozen=True)
class Choice:
    """One candidate token, the entry or sentence it heads, and the strip holding it."""

    token: str
    head: str
    description: str
    strip: Strip


@dataclass(frozen=True)
class TokenAnswer:
    """The chosen token, its alias on the same entry line, the strip holding it, the text."""

    token: str
    alias: str
    strip: Strip
    text: str


def asked_kind(question: str) -> Kind | None:
    """Return what kind of token the question asks for, if it asks for one."""
    return next((kind for kind, pattern in _ASKS if pattern.search(question)), None)


def _tokens(pattern: re.Pattern[str], text: str) -> list[str]:
    found = []
    for match in pattern.finditer(text):
        groups = [g for g in match.groups() if g]
        found.append(groups[0] if groups else match.group(0))
    return found


def _head_token(kind: Kind, head: str) -> str | None:
    """Return the token of `kind` an entry's head names (`-A` of `-A, --after-context=NUM`)."""
    found = _tokens(_FINDERS[kind], head)
    if not found and kind == "option" and _TERM.match(head):  # a sed flag such as `g`
        return head
    return found[0] if found else None


def _entry_choices(kind: Kind, strip: Strip) -> list[Choice]:
    choices = []
    for entry in split_entries(strip["text"]):
        token = _head_token(kind, entry.head)
        if token:
            choices.append(Choice(token, entry.head, entry.description, strip))
    return choices


def _prose_choices(kind: Kind, strip: Strip) -> list[Choice]:
    if kind not in _PROSE_FINDERS:
        return []
    choices = []
    for sentence in _SENTENCE.split(strip["text"]):
        for token in _tokens(_PROSE_FINDERS[kind], sentence):
            choices.append(Choice(token, token, " ".join(sentence.split()), strip))
    return choices


def token_candidates(kind: Kind, strips: Sequence[Strip]) -> list[Choice]:
    """Return one choice per distinct token of `kind` in the strips (best strips first).

    Entry heads come first, each with its own description; then the tokens that sentences
    mention and no head names (a flag cited in another entry's text, a keyword argument in
    example code), each with its sentence.
    """
    ranked = sorted(strips, key=lambda s: -s["score"])
    found = [c for s in ranked for c in _entry_choices(kind, s)]
    named = {t for c in found for t in _tokens(_FINDERS[kind], c.head)}
    found += [c for s in ranked for c in _prose_choices(kind, s) if c.token not in named]
    seen: dict[str, Choice] = {}
    for choice in found:
        if choice.token not in seen and len(seen) < _MAX_CHOICES:
            seen[choice.token] = choice
    return list(seen.values())


def _line(choice: Choice) -> str:
    title = choice.strip["title"][:_TITLE_CHARS]
    head = "" if choice.head == choice.token else f" ({choice.head})"
    return f"- {choice.token}{head} [{title}]: {choice.description}"


def _alias(choice: Choice) -> str:
    """Return another spelling of an option on its entry's head (`-k, --keep`), or ''."""
    others = [o for o in _tokens(_OPTION, choice.head) if o != choice.token]
    return _ARGUMENT.sub("", others[0]) if others else ""


def _occurs(token: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(token)}(?![\w])", text) is not None


def _sentence(kind: Kind, token: str, alias: str, *, short: bool) -> str:
    bare = _ARGUMENT.sub("", token) if kind == "option" else token
    if short:  # the bare option, without its argument: `--after-context=NUM` -> `--after-context`
        return bare
    named = f"`{bare}`" + (f" (`{alias}`)" if alias else "")
    return f"Use {named}." if kind in ("option", "key") else f"It is {named}."


def answer_with_token(
    model: BaseChatModel, question: str, strips: Sequence[Strip], *, short: bool
) -> TokenAnswer | None:
    """Choose a token from `strips` that answers `question`, or None to use the reader."""
    kind = asked_kind(question)
    found = token_candidates(kind, strips) if kind else []
    if kind is None or not found:
        return None
    prompt = CHOOSE_TOKEN.format(
        question=question,
        kind=kind,
        entries=as_data("\n".join(_line(c) for c in found)),
        none=NO_TOKEN,
    )
    probs = ask_choice(model, prompt, "answer", [*(c.token for c in found), NO_TOKEN])
    token = max(probs, key=lambda option: probs[option])
    choice = next((c for c in found if c.token == token), None)
    if choice is None or not _occurs(token, choice.strip["text"]):  # "none of these"
        return None
    alias = _alias(choice) if kind == "option" else ""
    text = _sentence(kind, token, alias, short=short)
    return TokenAnswer(token, alias, choice.strip, text)
