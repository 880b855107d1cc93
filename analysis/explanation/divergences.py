"""The distances of the attention tests: JS divergence in nats (at most ln 2) between
distributions, and output change as total variation distance (for two classes |p_1 - p_1'|)."""

from __future__ import annotations

import torch


def js_divergence(p, q):
    """Jensen-Shannon divergence (nats) along the last axis; 0 log 0 = 0."""
    p, q = torch.as_tensor(p, dtype=torch.float64), torch.as_tensor(q, dtype=torch.float64)
    m = 0.5 * (p + q)

    def kl(x, y):
        return torch.where(x > 0, x * (torch.log(x.clamp_min(1e-300)) - torch.log(y.clamp_min(1e-300))), 0.0).sum(-1)

    return 0.5 * kl(p, m) + 0.5 * kl(q, m)


def tvd(p, q):
    """Total variation distance along the last axis."""
    return 0.5 * (torch.as_tensor(p) - torch.as_tensor(q)).abs().sum(-1)
