"""The trained heads' runtime: MiniLM sentence embeddings in, relevance or route logits out.

`training.embed_head` fits these heads; the judges load them from their artifact folders.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file

__all__ = [
    "DIM",
    "EmbeddingHeadScorer",
    "RelevanceHead",
    "RouteHead",
    "embed_texts",
    "load_head",
    "load_route_head",
    "save_head",
]

DIM = 384
"""The MiniLM sentence embedding size."""


class RelevanceHead(torch.nn.Module):
    """An MLP over SBERT pair features, one logit out."""

    def __init__(self, *, hidden: int = 256, dropout: float = 0.1) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(4 * DIM + 1, hidden),
            torch.nn.GELU(),
            torch.nn.Dropout(dropout),
            torch.nn.Linear(hidden, 1),
        )

    def forward(self, questions: torch.Tensor, passages: torch.Tensor) -> torch.Tensor:
        """Return one logit per (question, passage) embedding row pair."""
        cosine = (questions * passages).sum(-1, keepdim=True)
        features = [questions, passages, (questions - passages).abs(), questions * passages, cosine]
        return self.net(torch.cat(features, dim=-1)).squeeze(-1)


def embed_texts(texts: Sequence[str], *, batch_size: int = 64) -> dict[str, torch.Tensor]:
    """Embed each distinct text once with the packaged MiniLM; return text -> vector."""
    from models.embeddings import MiniLMEmbeddings

    distinct = sorted(set(texts), key=len)
    model = MiniLMEmbeddings(batch_size=batch_size, precision="fp32").model  # as trained
    vectors = model.encode(
        distinct,
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_tensor=True,
        show_progress_bar=len(distinct) > 256,
    )
    return {text: vectors[i].float().cpu() for i, text in enumerate(distinct)}


def save_head(head: torch.nn.Module, path: Path) -> None:
    """Write the head's tensors (float32; well under 2 MB)."""
    save_file({k: v.contiguous() for k, v in head.state_dict().items()}, str(path))


def load_head(path: Path) -> RelevanceHead:
    """Read a head saved by `save_head`, in eval mode."""
    head = RelevanceHead()
    head.load_state_dict(load_file(str(path)))
    head.eval()
    return head


class EmbeddingHeadScorer:
    """Scores (question, passage) pairs with the frozen embedder and a trained head."""

    def __init__(self, head: RelevanceHead) -> None:
        self.head = head

    @torch.inference_mode()
    def logits(self, questions: Sequence[str], passages: Sequence[str]) -> torch.Tensor:
        """Return one logit per pair; each distinct text is embedded once."""
        if not questions:
            return torch.empty(0)
        vectors: dict[str, Any] = embed_texts([*questions, *passages])
        q = torch.stack([vectors[t] for t in questions])
        p = torch.stack([vectors[t] for t in passages])
        return self.head(q, p)


class RouteHead(torch.nn.Module):
    """An MLP over one question embedding, one logit per route."""

    def __init__(self, classes: int = 3, *, hidden: int = 256, dropout: float = 0.1) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(DIM, hidden),
            torch.nn.GELU(),
            torch.nn.Dropout(dropout),
            torch.nn.Linear(hidden, classes),
        )

    def forward(self, questions: torch.Tensor) -> torch.Tensor:
        """Return route logits for each question embedding row."""
        return self.net(questions)


def load_route_head(path: Path) -> RouteHead:
    """Read a route head saved with `save_head`, in eval mode."""
    head = RouteHead()
    head.load_state_dict(load_file(str(path)))
    head.eval()
    return head
