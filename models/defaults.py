"""Defaults light enough to import anywhere (the CLI's help, `Context`)."""

__all__ = ["DEFAULT_MODEL"]

DEFAULT_MODEL = "qwen2.5-coder-0.5b"
"""The default reader: it answers about four times better than SmolLM2-135M
(docs/models.md)."""
