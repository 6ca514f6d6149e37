"""Low-rank adapters (LoRA) for the MiniLM encoder: fine-tune every layer, ship a few MB.

Every linear layer inside the encoder gets a trainable update `B @ A * alpha / rank` beside
its frozen weight (Hu et al. 2021). Only `A` and `B` (plus the pooler and the head) are
trained and saved, so a cross-encoder adapted through all six layers is ~1-3 MB instead of
the 21 MB of the layers themselves. For inference `merge` folds the update into the weight
and puts the plain linear layer back, so an adapted model is exactly as fast as the base one.
"""

import math

import torch
from torch import nn

__all__ = ["LoraLinear", "add_lora", "lora_parameter_names", "merge"]

SCOPE = "bert.encoder."
"""Linear layers under this module path get adapters (attention, intermediate and output)."""


class LoraLinear(nn.Module):
    """A frozen `nn.Linear` plus a trainable low-rank update."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.base = base
        self.scale = alpha / rank
        self.lora_a = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))
        base.weight.requires_grad = False
        if base.bias is not None:
            base.bias.requires_grad = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return the base output plus the scaled low-rank update."""
        return self.base(x) + (x @ self.lora_a.T @ self.lora_b.T) * self.scale

    def merged(self) -> nn.Linear:
        """Return the base layer with the update folded into its weight."""
        with torch.no_grad():
            self.base.weight += (self.lora_b @ self.lora_a) * self.scale
        return self.base


def _linears(model: nn.Module, kind: type[nn.Module]) -> list[tuple[nn.Module, str, nn.Module]]:
    found = []
    for name, module in model.named_modules():
        if not name.startswith(SCOPE):
            continue
        for child_name, child in module.named_children():
            if type(child) is kind:
                found.append((module, child_name, child))
    return found


def add_lora(model: nn.Module, *, rank: int, alpha: float) -> int:
    """Wrap every encoder linear layer of `model` in a `LoraLinear`; return how many."""
    if rank < 1:
        raise ValueError(f"LoRA rank must be at least 1, got {rank}")
    wrapped = _linears(model, nn.Linear)
    for parent, name, child in wrapped:
        assert isinstance(child, nn.Linear)
        setattr(parent, name, LoraLinear(child, rank, alpha))
    return len(wrapped)


def lora_parameter_names(model: nn.Module) -> list[str]:
    """Return the names of the adapter tensors (what training changes inside the encoder)."""
    return [n for n, _ in model.named_parameters() if n.endswith((".lora_a", ".lora_b"))]


def merge(model: nn.Module) -> int:
    """Fold every adapter into its base weight and unwrap it; return how many were merged."""
    adapted = _linears(model, LoraLinear)
    for parent, name, child in adapted:
        assert isinstance(child, LoraLinear)
        setattr(parent, name, child.merged())
    return len(adapted)
