"""The embedding-head evaluator: a relevance head over frozen MiniLM sentence embeddings.

The question and the passage are embedded separately by the packaged all-MiniLM-L6-v2
(unit-normalised, as the vector store does), and a small MLP reads SBERT's pair features
`[u, v, |u - v|, u * v, cos(u, v)]` and outputs one relevance logit. Only the head (about
0.4 M parameters) is trained, on pre-computed embeddings, so training costs one embedding
pass over the pairs plus seconds of head updates: this is what fits a shared 2-core CPU,
where fine-tuning the cross-encoder's top layers got through too few examples (docs/judges.md).
"""

import logging
import random
from collections.abc import Callable

import torch

from models.heads import RelevanceHead, RouteHead

__all__ = ["fit_head", "fit_route_head"]

logger = logging.getLogger(__name__)


def fit_head(
    questions: torch.Tensor,
    passages: torch.Tensor,
    labels: torch.Tensor,
    *,
    epochs: int = 30,
    batch_size: int = 128,
    lr: float = 1e-3,
    seed: int = 0,
) -> tuple[RelevanceHead, float]:
    """Train a head with binary cross-entropy (AdamW); return it (eval mode) and the last loss."""
    torch.manual_seed(seed)
    head = RelevanceHead()

    def loss(batch: torch.Tensor) -> torch.Tensor:
        logits = head(questions[batch], passages[batch])
        return torch.nn.functional.binary_cross_entropy_with_logits(logits, labels[batch].float())

    return head, _train(
        head, loss, len(labels), epochs=epochs, batch_size=batch_size, lr=lr, seed=seed
    )


def fit_route_head(
    questions: torch.Tensor,
    labels: torch.Tensor,
    *,
    epochs: int = 40,
    lr: float = 1e-3,
    batch_size: int = 64,
    seed: int = 0,
) -> tuple[RouteHead, float]:
    """Train a route head with cross-entropy; return it (eval mode) and the last loss."""
    torch.manual_seed(seed)
    head = RouteHead()

    def loss(batch: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.cross_entropy(head(questions[batch]), labels[batch])

    return head, _train(
        head, loss, len(labels), epochs=epochs, batch_size=batch_size, lr=lr, seed=seed
    )


def _train(
    head: torch.nn.Module,
    loss_of: Callable[[torch.Tensor], torch.Tensor],
    size: int,
    *,
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int,
) -> float:
    """Run AdamW over shuffled mini-batches of `size` examples; leave `head` in eval mode.

    Returns the last batch's loss (nan when there was no batch).
    """
    optimizer = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=0.01)
    rng, order, loss_value = random.Random(seed), list(range(size)), float("nan")
    head.train()
    for _ in range(epochs):
        rng.shuffle(order)
        for start in range(0, size, batch_size):
            loss = loss_of(torch.tensor(order[start : start + batch_size]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_value = loss.item()
    head.eval()
    return loss_value
