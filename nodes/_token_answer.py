"""Answer option, key, path and value questions with a token the kept strips hold.

The reader does not write the token: candidates are taken from the strips (options such as
`-k`/`--keep`, upper-case keys, paths, code spans, numbers), the model picks one through a
schema-constrained choice, and the answer is a short sentence built around it, citing the
strip that holds it. Anything else (no such question, no candidates, "none of these")
leaves the question to the ordinary reader.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from langchain_core.language_models import BaseChatModel

from graphs.state import Strip
from models.judges_llm import ask_choice
from nodes._common import format_passages
from prompts.token_answer import CHOOSE_TOKEN, NO_TOKEN

__all__ = ["TokenAnswer", "answer_with_token", "asked_kind", "token_candidates"]

Kind = Literal["option", "key", "path", "value"]
_MAX_CHOICES = 12

_ASKS: list[tuple[Kind, re.Pattern[str]]] = [
    ("option", re.compile(r"\b(option|flag|switch|argument)s?\b|^\s*how (do|can|would) i\b", re.I)),
    ("key", re.compile(r"\b(key|setting|variable|field|directive|parameter)s?\b", re.I)),
    (
        "path",
        re.compile(r"\b(path|file|directory|folder)\b.*\b(where|which|what)\b|^\s*where\b", re.I),
    ),
    ("value", re.compile(r"\b(default|exit (status|code)|return code|port|value)\b", re.I)),
]
_FINDERS: dict[Kind, re.Pattern[str]] = {
    "option": re.compile(r"(?<![\w/-])--?[A-Za-z][\w-]*(?:=[\w\[\]+.:/-]+)?"),
    "key": re.compile(r"`([^`\s]{2,40})`|(?<![\w$-])\$?([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b"),
    "path": re.compile(r"(?<![\w/])((?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]*)+)"),
    "value": re.compile(
        r"`([^`]{1,30})`|\"([^\"\s]{1,30})\"|(?<![\w.-])(\d+(?:\.\d+)?\s?(?:[KMGT]i?B|ms|s|%)?)(?![\w.])"
    ),
}
_OPTION_HEAD = re.compile(r"^\s*((?:--?[A-Za-z][\w-]*(?:[=\[][^\s,]*)?,?\s?)+)")


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


def _found(kind: Kind, text: str) -> list[str]:
    tokens = []
    for match in _FINDERS[kind].finditer(text):
        groups = [g for g in match.groups() if g] if match.groups() else []
        tokens.append((groups[0] if groups else match.group(0)).strip())
    return tokens


def token_candidates(kind: Kind, strips: Sequence[Strip]) -> list[tuple[str, Strip]]:
    """Return distinct tokens of `kind` in the strips (best strips first), with their strip."""
    seen: dict[str, Strip] = {}
    for strip in sorted(strips, key=lambda s: -s["score"]):
        for token in _found(kind, strip["text"]):
            if token not in seen and len(seen) < _MAX_CHOICES:
                seen[token] = strip
    return list(seen.items())


def _alias(token: str, text: str) -> str:
    """Return another spelling of an option on its entry line (`-k, --keep`), or ''."""
    for line in text.splitlines():
        head = _OPTION_HEAD.match(line)
        if head and token in head.group(1):
            others = [o for o in _found("option", head.group(1)) if o != token]
            return others[0] if others else ""
    return ""


def _sentence(kind: Kind, token: str, alias: str, question: str, *, short: bool) -> str:
    if short:  # the bare option, without its argument: `--after-context=NUM` -> `--after-context`
        return re.sub(r"[=\[].*$", "", token) if kind == "option" else token
    named = f"`{token}`" + (f" (`{alias}`)" if alias else "")
    if kind == "value" and re.search(r"\bdefault\b", question, re.I):
        return f"The default is {named}."
    return f"Use {named}." if kind in ("option", "key") else f"It is {named}."


def answer_with_token(
    model: BaseChatModel, question: str, strips: Sequence[Strip], *, short: bool
) -> TokenAnswer | None:
    """Choose a token from `strips` that answers `question`, or None to use the reader."""
    kind = asked_kind(question)
    found = token_candidates(kind, strips) if kind else []
    if kind is None or not found:
        return None
    choices = [token for token, _ in found]
    prompt = CHOOSE_TOKEN.format(
        passages=format_passages(strips),
        question=question,
        none=NO_TOKEN,
        choices=", ".join(choices),
    )
    probs = ask_choice(model, prompt, "answer", [*choices, NO_TOKEN])
    token = max(probs, key=lambda option: probs[option])
    strip = dict(found).get(token)
    if strip is None or token not in strip["text"]:  # "none of these", or not in its strip
        return None
    alias = _alias(token, strip["text"]) if kind == "option" else ""
    return TokenAnswer(token, alias, strip, _sentence(kind, token, alias, question, short=short))
