"""Batched inference for the MiniLM judges: texts (or pairs) in, logits out."""

from collections.abc import Sequence

import torch
from tqdm.auto import tqdm
from transformers import PreTrainedModel, PreTrainedTokenizerBase

__all__ = ["batched_logits", "encode_pairs"]


def encode_pairs(
    tokenizer: PreTrainedTokenizerBase,
    first: Sequence[str],
    second: Sequence[str] | None,
    max_length: int,
) -> dict[str, torch.Tensor]:
    """Tokenize texts (or text pairs) into padded, truncated tensors."""
    return dict(
        tokenizer(
            list(first),
            list(second) if second is not None else None,
            truncation=True,
            max_length=max_length,
            padding=True,
            return_tensors="pt",
        )
    )


@torch.inference_mode()
def batched_logits(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    first: Sequence[str],
    second: Sequence[str] | None = None,
    *,
    batch_size: int = 32,
    max_length: int = 256,
    progress: bool = False,
) -> torch.Tensor:
    """Return the model's logits for every input, batching inputs of similar length."""
    labels = int(model.config.num_labels or 1)
    if not first:
        return torch.empty(0, labels)
    sizes = [len(a) + (len(second[i]) if second is not None else 0) for i, a in enumerate(first)]
    order = sorted(range(len(first)), key=sizes.__getitem__)
    out = torch.empty(len(first), labels)
    starts = range(0, len(order), batch_size)
    for start in tqdm(starts, desc="scoring", unit="batch", disable=not progress):
        batch = order[start : start + batch_size]
        inputs = encode_pairs(
            tokenizer,
            [first[i] for i in batch],
            [second[i] for i in batch] if second is not None else None,
            max_length,
        )
        out[batch] = model(**inputs).logits.float()
    return out
