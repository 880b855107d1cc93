"""Adam and AdamW for every training in the workflow, with torch's multi-tensor update.

On the CPU torch updates Adam's parameters one tensor at a time (its multi-tensor "foreach" path
is the default only on CUDA): a few small kernel calls per parameter tensor and step, which is
most of an optimiser step for the small models trained here (adversaries, probes, classifiers).
The multi-tensor path does the same arithmetic in one call per operation over all tensors and
gives bit-identical parameters (``tests/unit/shared/test_optim.py``), so the tables do not move.
On CUDA it is what torch does anyway.
"""

from __future__ import annotations

import torch


def adam(params, **kwargs) -> torch.optim.Adam:
    """``torch.optim.Adam(params, **kwargs)`` with the multi-tensor update."""
    return torch.optim.Adam(params, foreach=True, **kwargs)


def adamw(params, **kwargs) -> torch.optim.AdamW:
    """``torch.optim.AdamW(params, **kwargs)`` with the multi-tensor update."""
    return torch.optim.AdamW(params, foreach=True, **kwargs)
