import pytest
import torch
from torch import nn

from models.lora import LoraLinear, add_lora, lora_parameter_names, merge


class _Layer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.query = nn.Linear(8, 8)
        self.output = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.output(torch.relu(self.query(x)))


class _Bert(nn.Module):
    """The module paths of a BERT encoder (`bert.encoder.layer.N.*`) plus a head outside it."""

    def __init__(self) -> None:
        super().__init__()
        self.bert = nn.Module()
        self.bert.encoder = nn.Module()
        self.bert.encoder.layer = nn.ModuleList([_Layer(), _Layer()])
        self.classifier = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.bert.encoder.layer:
            x = torch.cat([layer(x), layer(x)], dim=-1)
        return self.classifier(x[..., :4])


def test_adapters_wrap_only_encoder_linears_and_freeze_their_base() -> None:
    model = _Bert()
    assert add_lora(model, rank=2, alpha=4) == 4
    assert not isinstance(model.classifier, LoraLinear)
    names = lora_parameter_names(model)
    assert len(names) == 8 and "bert.encoder.layer.0.query.lora_a" in names
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    assert trainable == {*names, "classifier.weight", "classifier.bias"}


def test_a_fresh_adapter_changes_nothing() -> None:
    torch.manual_seed(0)
    model, x = _Bert(), torch.randn(3, 8)
    before = model(x)
    add_lora(model, rank=2, alpha=4)
    assert torch.allclose(model(x), before)


def test_merging_keeps_the_adapted_outputs_and_unwraps_the_layers() -> None:
    torch.manual_seed(0)
    model, x = _Bert(), torch.randn(3, 8)
    add_lora(model, rank=2, alpha=4)
    for name, parameter in model.named_parameters():
        if name.endswith("lora_b"):
            nn.init.normal_(parameter)
    adapted = model(x)
    assert merge(model) == 4
    assert not any(isinstance(m, LoraLinear) for m in model.modules())
    assert torch.allclose(model(x), adapted, atol=1e-5)


def test_a_rank_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        add_lora(_Bert(), rank=0, alpha=1)
