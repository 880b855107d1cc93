"""The self-attention module of every layer of a Hugging Face encoder: where disabling heads
(Kovaleva et al.) and head gates (Michel et al.) hook in.
"""

from __future__ import annotations

from torch import nn

from analysis.core.models import shape_of


def self_attention_modules(model) -> list[nn.Module]:
    """The self-attention module of every layer, in order (one per layer, checked)."""
    mods = [
        m for m in model.modules() if all(isinstance(getattr(m, a, None), nn.Linear) for a in ("query", "key", "value"))
    ]
    n_layers, _ = shape_of(model)
    if len(mods) != n_layers:
        raise ValueError(
            f"found {len(mods)} self-attention modules with query/key/value projections, "
            f"expected one per layer ({n_layers}); this architecture is not supported"
        )
    return mods
