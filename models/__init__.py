"""Models: chat models (local and remote), embeddings, and the learned judges.

Attributes load lazily, so light modules (`models.errors`, `models.defaults`) can be imported
without LangChain or llama.cpp.
"""

from importlib import import_module
from typing import Any

__all__ = [
    "MiniLMEmbeddings",
    "ModelFileError",
    "ModelSpecError",
    "PromptError",
    "UserError",
    "load_chat_model",
    "parse_spec",
]

_HOMES = {
    "MiniLMEmbeddings": "models.embeddings",
    "ModelFileError": "models.errors",
    "ModelSpecError": "models.errors",
    "PromptError": "models.errors",
    "UserError": "models.errors",
    "load_chat_model": "models.chat",
    "parse_spec": "models.chat",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'models' has no attribute {name!r}")
