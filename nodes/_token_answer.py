"""Check an option, key or value answer against the tokens the kept strips hold.

The reader answers first, as for any question. When the question asks for such a token,
the kept strips are split into entries (one option of a `--help` list, one term of a
definition list, each with its own description; `_doc_entries`) and each entry's head is a
candidate, then the tokens sentences mention. An answer that names a candidate becomes that
token, bare in the short style (`--pid=PID` -> `--pid`) or in a sentence with its other
spelling ("Use `-k` (`--keep`)."), citing the strip that holds it. An answer that names no
token of the kind (a heading, a tool name) is replaced by the model's schema-constrained
choice among the candidates, each shown with its own description only.
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
from prompts.generate import NOT_FOUND
from prompts.token_answer import CHOOSE_TOKEN, NO_TOKEN

__all__ = [
    "Choice",
    "TokenAnswer",
    "asked_kind",
    "check_answer",
    "token_candidates",
]

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


def _choose(model: BaseChatModel, question: str, kind: Kind, found: list[Choice]) -> Choice | None:
    """Ask the model to pick one candidate (schema-constrained), or None for "none of these"."""
    prompt = CHOOSE_TOKEN.format(
        question=question,
        kind=kind,
        entries=as_data("\n".join(_line(c) for c in found)),
        none=NO_TOKEN,
    )
    probs = ask_choice(model, prompt, "answer", [*(c.token for c in found), NO_TOKEN])
    token = max(probs, key=lambda option: probs[option])
    return next((c for c in found if c.token == token), None)


def _answer(kind: Kind, choice: Choice, *, short: bool) -> TokenAnswer | None:
    """Return the answer built around `choice`, if its token occurs in its strip."""
    if not _occurs(choice.token, choice.strip["text"]):
        return None
    alias = _alias(choice) if kind == "option" else ""
    text = _sentence(kind, choice.token, alias, short=short)
    return TokenAnswer(choice.token, alias, choice.strip, text)


def _position(spelling: str, answer: str) -> int | None:
    """Where the answer names `spelling`; a bare word (`g`, `indent`) must be the answer."""
    if spelling.lstrip("-") == answer.strip(" `'\"‘’.").lstrip("-"):
        return 0
    if not spelling.startswith("-") and len(spelling) < 3:
        return None
    found = re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", answer)
    return found.start() if found else None


def _named(kind: Kind, answer: str, found: list[Choice]) -> Choice | None:
    """Return the candidate the answer names first (by any spelling on its head), or None."""
    where: dict[int, Choice] = {}
    for choice in reversed(found):  # on a tie the better-ranked candidate wins
        for token in dict.fromkeys([choice.token, *_tokens(_FINDERS[kind], choice.head)]):
            spelling = _ARGUMENT.sub("", token) if kind == "option" else token
            if (at := _position(spelling, answer)) is not None:
                where[at] = choice
    return where[min(where)] if where else None


def check_answer(
    model: BaseChatModel, question: str, answer: str, strips: Sequence[Strip], *, short: bool
) -> TokenAnswer | None:
    """Rebuild the reader's answer around the candidate token it names, or choose one.

    An answer naming a listed token (`--pid=PID`, `-w, --ignore-all-space`) becomes that
    token; one naming none of the asked kind (a heading, a tool name) is replaced by the
    model's choice among the candidates. None keeps the reader's answer: no token question,
    no candidates, an abstention, or a token the entries do not list.
    """
    kind = asked_kind(question)
    found = token_candidates(kind, strips) if kind else []
    if kind is None or not found or not answer.strip() or NOT_FOUND in answer.upper():
        return None
    named = _named(kind, answer, found)
    if named is not None:
        return _answer(kind, named, short=short)
    if _tokens(_PROSE_FINDERS.get(kind, _FINDERS[kind]), answer):
        return None
    choice = _choose(model, question, kind, found)
    return _answer(kind, choice, short=short) if choice else None
