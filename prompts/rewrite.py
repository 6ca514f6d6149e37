"""CRAG's query rewrite: turn a question into at most three search keywords (few-shot, as chat)."""

__all__ = ["REWRITE_EXAMPLES", "REWRITE_SYSTEM"]

REWRITE_SYSTEM = (
    "Turn each question into at most three search keywords, separated by commas. "
    "Reply with the keywords only."
)

REWRITE_EXAMPLES = (
    ("Which sport does Maria Lopez coach?", "Maria Lopez, coach, sport"),
    ("In what year was the Harbor Bridge in Sydney opened?", "Sydney Harbor Bridge, opened"),
    ("What is the river that flows through Vienna?", "Vienna, river"),
)
"""(question, keywords) pairs shown to the model as earlier turns of the conversation."""
