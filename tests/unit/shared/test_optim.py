"""The multi-tensor Adam / AdamW of ``analysis.shared.optim`` give bit-identical parameters to
torch's one-tensor-at-a-time update (the speed change must not move a table), and every training
in ``analysis`` builds its optimiser through them."""

from pathlib import Path

import pytest
import torch

from analysis.shared import optim

ROOT = Path(__file__).resolve().parents[3]


def _train(make_opt, steps: int = 60) -> torch.Tensor:
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(7, 16), torch.nn.Tanh(), torch.nn.LayerNorm(16), torch.nn.Linear(16, 3))
    decay = [p for p in net.parameters() if p.ndim == 2]
    rest = [p for p in net.parameters() if p.ndim < 2]
    opt = make_opt([{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}])
    g = torch.Generator().manual_seed(1)
    for _ in range(steps):
        x, y = torch.randn(5, 7, generator=g), torch.randint(0, 3, (5,), generator=g)
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return torch.cat([p.detach().flatten() for p in net.parameters()])


@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize(("ours", "torchs"), [(optim.adam, torch.optim.Adam), (optim.adamw, torch.optim.AdamW)])
def test_multi_tensor_update_is_bit_identical(ours, torchs, amsgrad):
    fast = _train(lambda groups: ours(groups, lr=0.01, amsgrad=amsgrad))
    loop = _train(lambda groups: torchs(groups, lr=0.01, amsgrad=amsgrad, foreach=False))
    assert ours([torch.zeros(1, requires_grad=True)]).defaults["foreach"] is True
    assert torch.equal(fast, loop)
    assert not torch.equal(fast, _train(lambda groups: torchs(groups, lr=0.02, foreach=False)))  # the check can fail


def test_every_training_uses_the_shared_optimisers():
    direct = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in sorted((ROOT / "analysis").rglob("*.py"))
        if p.name != "optim.py"
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if "torch.optim.Adam" in line
    ]
    assert direct == []
