"""Hugging Face internals: :class:`RowPatch` patches one layer's attention row (the
[CLS]-like query) inside any Hugging Face model that dispatches attention through
``ALL_ATTENTION_FUNCTIONS`` (BERT, RoBERTa, ... with eager attention), for the tests on the
transformer's own attention (:mod:`analysis.explanation.erasure_cls`)."""

from __future__ import annotations

import torch

_PATCH_NAME = "attention_row_patch"
_ACTIVE: list = []


def _patched_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
    """Eager attention; on the patched layer the probabilities of one query row go
    through the active patch's function."""
    if scaling is None:
        scaling = query.size(-1) ** -0.5
    w = torch.matmul(query, key.transpose(2, 3)) * scaling
    if attention_mask is not None:
        w = w + attention_mask
    w = torch.softmax(w, dim=-1)
    patch = _ACTIVE[-1] if _ACTIVE else None
    if patch is not None and getattr(module, "layer_idx", None) == patch.layer and patch.fn is not None:
        row = patch.fn(w[:, :, patch.row, :])
        w = torch.cat([w[:, :, : patch.row], row[:, :, None], w[:, :, patch.row + 1 :]], dim=2)
    out = torch.matmul(w, value).transpose(1, 2).contiguous()
    return out, w


class RowPatch:
    """Context manager: inside it, ``model``'s attention at ``layer`` (0-based) for query
    position ``row`` is replaced by ``self.fn(row_probs (B, heads, n))``."""

    def __init__(self, model, layer: int, row: int = 0):
        from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, eager_mask
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

        self.model, self.layer, self.row, self.fn = model, layer, row, None
        ALL_ATTENTION_FUNCTIONS.register(_PATCH_NAME, _patched_attention)
        ALL_MASK_ATTENTION_FUNCTIONS.register(_PATCH_NAME, eager_mask)  # the additive masks of eager
        layers = {getattr(m, "layer_idx", None) for m in model.modules()} - {None}
        if layer not in layers:
            raise ValueError(
                f"layer {layer} (0-based) not found among the attention modules' layer_idx {sorted(layers)}; "
                "this architecture cannot be patched"
            )

    def __enter__(self):
        self._configs = [
            (c, c._attn_implementation)
            for c in {id(m.config): m.config for m in self.model.modules() if hasattr(m, "config")}.values()
        ]
        for c, _ in self._configs:
            c._attn_implementation = _PATCH_NAME
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc):
        _ACTIVE.remove(self)
        for c, impl in self._configs:
            c._attn_implementation = impl
        return False
