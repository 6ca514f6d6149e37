"""Input checks that run before any model call: the question (the Context checks itself)."""

import unicodedata

from models.errors import UserError

__all__ = ["InvalidContextError", "InvalidQuestionError", "validate_question"]

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
