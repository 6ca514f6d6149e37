"""Models: chat models (local and remote), embeddings, and the learned judges."""

from models.chat import load_chat_model, parse_spec
from models.embeddings import MiniLMEmbeddings
from models.errors import ModelFileError, ModelSpecError, PromptError, UserError

__all__ = [
    "MiniLMEmbeddings",
    "ModelFileError",
    "ModelSpecError",
    "PromptError",
    "UserError",
    "load_chat_model",
    "parse_spec",
]
