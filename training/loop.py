"""A small CPU fine-tuning loop for the MiniLM judges (inference batching: `models.artifact`)."""

import logging
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from tqdm.auto import tqdm
from transformers import PreTrainedModel, PreTrainedTokenizerBase

from models.batching import encode_pairs

__all__ = ["FitResult", "fine_tune"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FitResult:
    """What a training run did: steps, examples seen, wall seconds and the final loss."""

    steps: int
    examples: int
    seconds: float
    final_loss: float


def _loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    if logits.shape[-1] == 1:
        return torch.nn.functional.binary_cross_entropy_with_logits(
            logits.squeeze(-1), labels.float()
        )
    return torch.nn.functional.cross_entropy(logits, labels.long())


def fine_tune(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    first: Sequence[str],
    second: Sequence[str] | None,
    labels: Sequence[int],
    *,
    steps: int,
    batch_size: int = 16,
    lr: float = 1e-4,
    max_length: int = 256,
    seed: int = 0,
    time_budget: float | None = None,
) -> FitResult:
    """Train the parameters that require grad for `steps` batches (AdamW, linear decay).

    One output logit means binary cross-entropy on 0/1 labels; more mean cross-entropy. With
    `time_budget` (seconds) the learning rate decays by whichever of steps or time runs out
    first, and training stops when the budget is spent, so a busy machine still finishes.
    """
    torch.manual_seed(seed)
    rng = random.Random(seed)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    warmup = max(1, steps // 10)
    order: list[int] = []
    model.train()
    start, loss_value, done = time.perf_counter(), math.nan, 0
    for step in tqdm(range(steps), desc="training", unit="step"):
        elapsed = time.perf_counter() - start
        progress = max(step / steps, elapsed / time_budget if time_budget else 0.0)
        if progress >= 1.0:
            logger.warning("time budget spent after %d of %d steps", step, steps)
            break
        for group in optimizer.param_groups:
            group["lr"] = lr * min((step + 1) / warmup, 1.0 - progress)
        if len(order) < batch_size:
            order.extend(rng.sample(range(len(labels)), len(labels)))
        batch, order = order[:batch_size], order[batch_size:]
        inputs = encode_pairs(
            tokenizer,
            [first[i] for i in batch],
            [second[i] for i in batch] if second is not None else None,
            max_length,
        )
        loss = _loss(model(**inputs).logits, torch.tensor([labels[i] for i in batch]))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        done += 1
        loss_value = (
            0.9 * loss_value + 0.1 * loss.item() if loss_value == loss_value else loss.item()
        )
    model.eval()
    seconds = time.perf_counter() - start
    logger.info("trained %d steps in %.0f s (loss %.3f)", done, seconds, loss_value)
    return FitResult(done, done * batch_size, seconds, loss_value)
