"""Hugging Face internals: :class:`RowPatch` replaces one layer's attention row (the [CLS]-like
query) inside any encoder family, for the tests on the transformer's own attention
(:mod:`analysis.explanation.erasure_cls`).

The row is patched where every family's heads meet (``analysis.shared.attention_modules``): the
patched layer's head contexts at the query position become the patched probabilities times the
value vectors, c_h = a'_h V_h, which is what the attention would give with row a'_h in place.
The unpatched row a_h comes from a forward pass with ``output_attentions`` (the caller's)."""

from __future__ import annotations

import torch

from analysis.shared.attention_modules import HeadSiteHooks


class RowPatch(HeadSiteHooks):
    """Context manager: inside it, ``model``'s attention at ``layer`` (0-based) for query
    position ``row`` is ``self.fn(probs)`` (``probs`` (B or 1, heads, n): the unpatched row,
    expanded to the batch) instead of ``probs``; ``fn = None`` leaves the model as it is."""

    def __init__(self, model, layer: int, row: int, probs: torch.Tensor):
        super().__init__(model)
        if not 0 <= layer < len(self.sites):
            raise ValueError(f"layer {layer} (0-based) out of range 0..{len(self.sites) - 1}")
        self.layer, self.row, self.probs, self.fn = layer, row, probs, None
        self._v = None

    def on_values(self, layer, values):
        if layer == self.layer:
            self._v = values  # (B, n, heads, d)

    def on_contexts(self, layer, contexts):
        if layer != self.layer or self.fn is None:
            return None
        b = contexts.shape[0]
        probs = self.probs.to(contexts.device, contexts.dtype)
        new = self.fn(probs.expand(b, *probs.shape[-2:]))  # (B, heads, n)
        row = torch.einsum("bhk,bkhd->bhd", new.to(self._v.dtype), self._v)
        return torch.cat([contexts[:, : self.row], row[:, None], contexts[:, self.row + 1 :]], dim=1)
