"""Input checks that run before any model call: the question and the run's Context."""

import unicodedata
from typing import TYPE_CHECKING

from models.errors import UserError

if TYPE_CHECKING:
    from graphs.context import Context

__all__ = ["InvalidContextError", "InvalidQuestionError", "check_context", "validate_question"]

_ALLOWED_CONTROLS = {"\n", "\t", "\r"}


class InvalidQuestionError(UserError, ValueError):
    """A question that is empty, too long, or contains control characters."""


class InvalidContextError(UserError, ValueError):
    """A Context setting outside its valid range."""


def validate_question(text: object, *, max_chars: int) -> str:
    """Return the question stripped of surrounding whitespace, or raise InvalidQuestionError."""
    if not isinstance(text, str):
        raise InvalidQuestionError(f"the question must be text, not {type(text).__name__}")
    question = text.strip()
    if not question:
        raise InvalidQuestionError("the question is empty")
    if len(question) > max_chars:
        raise InvalidQuestionError(
            f"the question has {len(question)} characters; the limit is {max_chars}"
        )
    bad = sorted(
        {f"U+{ord(c):04X}" for c in question if unicodedata.category(c) == "Cc"}
        - {f"U+{ord(c):04X}" for c in _ALLOWED_CONTROLS}
    )
    if bad:
        raise InvalidQuestionError(f"the question contains control characters: {', '.join(bad)}")
    # Lone surrogates come from invalid UTF-8 (surrogateescape) and cannot be encoded again.
    surrogates = sorted({f"U+{ord(c):04X}" for c in question if unicodedata.category(c) == "Cs"})
    if surrogates:
        raise InvalidQuestionError(
            f"the question is not valid Unicode text (lone surrogates {', '.join(surrogates)})"
        )
    return question


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise InvalidContextError(message)


def check_context(context: "Context") -> None:
    """Raise InvalidContextError for settings that cannot work."""
    c = context
    for name in ("upper_threshold", "lower_threshold", "strip_threshold"):
        value = getattr(c, name)
        _require(value is None or -1.0 <= value <= 1.0, f"{name} must lie in [-1, 1]")
    if c.lower_threshold is not None and c.upper_threshold is not None:
        _require(
            c.lower_threshold <= c.upper_threshold,
            "thresholds must satisfy lower_threshold <= upper_threshold",
        )
    for name in (
        "top_k",
        "strips_top_k",
        "strip_sentences",
        "strip_words",
        "candidates",
        "ircot_max_paragraphs",
        "max_answer_tokens",
        "judge_attempts",
        "max_question_chars",
        "web_k",
    ):
        _require(getattr(c, name) >= 1, f"{name} must be at least 1")
    _require(1 <= c.ircot_max_steps <= 50, "ircot_max_steps must lie in [1, 50]")
    _require(0 <= c.max_retries <= 50, "max_retries must lie in [0, 50]")
    _require(1.0 <= c.repeat_penalty <= 2.0, "repeat_penalty must lie in [1, 2]")
    for name in ("w_rel", "w_sup", "w_use"):
        _require(getattr(c, name) >= 0, f"{name} must not be negative")
