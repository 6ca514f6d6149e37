"""IRCoT: write the next single chain-of-thought sentence, ending with "So the answer is: X"."""

from prompts.framing import DATA_RULE

__all__ = ["ANSWER_MARKER", "IRCOT_FIRST", "IRCOT_NEXT", "IRCOT_SYSTEM"]

ANSWER_MARKER = "answer is"

IRCOT_SYSTEM = (
    f"You reason step by step over reference passages. {DATA_RULE} "
    "Write exactly one short sentence."
)

IRCOT_FIRST = """{passages}
Question: {question}
Write only the next sentence of your reasoning: one fact from the passages that helps answer
the question."""

IRCOT_NEXT = """{passages}
Question: {question}
Facts so far:
{sentences}
Write only the next sentence: the next fact. If the facts answer the question, write
"So the answer is: X" instead."""
