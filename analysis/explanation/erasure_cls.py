"""Beyond the papers (rule ``erasure_cls``): the erasure tests of Serrano & Smith 2019 on the
transformer's own attention. The classifier is the frozen transformer + the ``cls_probe``
read-out of its last-layer [CLS]-like state; the attention tested is one layer's [CLS] row,
heads averaged, patched inside the model (:mod:`analysis.explanation.attention_patch`)."""

from __future__ import annotations

import logging

import pandas as pd
import torch

from analysis.explanation.attention_patch import RowPatch
from analysis.explanation.erasure import erasure_summary, erasure_tables
from analysis.explanation.explainer import Instance, renormalise
from analysis.shared.attention_modules import start_at_layer

log = logging.getLogger(__name__)


class ClsExplainer:
    """The frozen transformer + a linear read-out of its last-layer [CLS]-like state; the
    attention tested is the chosen layer's [CLS] row, heads averaged. Erasing item t zeroes
    column t in every head's row and renormalises each head."""

    def __init__(self, transformer, probe, layer: int):
        self.tf, self.probe, self.layer = transformer, probe, layer

    def _run(self, inst: Instance, fn, fast: bool = True):
        """Output distributions (B, C) with the patched row; ``fast`` re-runs only the layers
        from the patched one up, from the cached hidden states below it (no padding: one
        sentence repeated)."""
        B = getattr(fn, "batch", 1)
        ids_b = inst.inputs["ids"][None].expand(B, -1).to(self.tf.device)
        att = torch.ones(ids_b.shape, dtype=torch.long, device=self.tf.device)
        cls = inst.inputs["cls"]
        with RowPatch(self.tf.model, self.layer, cls, inst.inputs["heads"]) as patch:
            patch.fn = fn
            h_in = inst.inputs.get("h_in") if fast else None
            if h_in is not None:
                with start_at_layer(self.tf.model, self.layer, h_in[None].expand(B, -1, -1).to(self.tf.device)):
                    H = self.tf.forward(ids_b, att)
            else:
                H = self.tf.forward(ids_b, att)
        return torch.softmax(self.probe(H[:, cls].float().cpu()), -1)

    def instance(self, i: int, words: list[str], label: int) -> Instance:
        from analysis.core.models import token_kinds

        ids, _, cls = self.tf.encode_ids(words)
        if cls < 0:
            raise ValueError("the tokenizer marks no [CLS]-like token; the [CLS]-row erasure needs one")
        inst = Instance(
            i,
            self.tf.tok.convert_ids_to_tokens(ids),
            label,
            torch.zeros(0),
            torch.zeros(0),
            torch.zeros(0),
            {"ids": torch.tensor(ids), "cls": cls, "kinds": token_kinds(self.tf.tok, ids)},
        )
        with torch.no_grad():  # one unpatched pass: the row, the decision and the states per layer
            ids_ = inst.inputs["ids"][None].to(self.tf.device)
            out = self.tf.model(
                input_ids=ids_, attention_mask=torch.ones_like(ids_), output_attentions=True, output_hidden_states=True
            )
            inst.inputs["heads"] = out.attentions[self.layer][0, :, cls].cpu()  # (heads, n): the unpatched row
            inst.probs = torch.softmax(self.probe(out.last_hidden_state[:, cls].float().cpu()), -1)[0]
            self._cache_layer_input(inst, out.hidden_states[self.layer][0])
        inst.a = inst.inputs["heads"].mean(0)
        return inst

    def _cache_layer_input(self, inst: Instance, h_in: torch.Tensor) -> None:
        """Keep ``h_in``, the hidden states entering the patched layer, in ``inst.inputs["h_in"]`` when
        re-running the upper layers alone reproduces the full model's output."""
        inst.inputs["h_in"] = h_in
        try:
            fast = self._run(inst, lambda row: row, fast=True)[0]
        except NotImplementedError:  # no list of layers to start at (ALBERT's one shared layer)
            del inst.inputs["h_in"]
            return
        if not torch.allclose(fast, inst.probs, atol=1e-5):
            log.warning(
                "instance %d: re-running the upper layers alone differs from the full model "
                "(%.2g); using full forward passes",
                inst.id,
                float((fast - inst.probs).abs().max()),
            )
            del inst.inputs["h_in"]

    def decide_keep(self, inst: Instance):
        def decide(keep):
            keep = keep.to(self.tf.device)

            def fn(row):
                return renormalise(row, keep[:, None, :].to(row.dtype))

            fn.batch = keep.shape[0]
            return self._run(inst, fn)

        return decide

    def attention_gradient(self, inst: Instance) -> torch.Tensor:
        """Sum over heads of d p(decision) / d a_{h,t}: the gradient w.r.t. a shift of item
        t's weight shared by every head (same ranking as the gradient w.r.t. the mean)."""
        leaf = {}

        def fn(row):
            r = row.detach().clone().requires_grad_(True)
            leaf["r"] = r
            return r

        with torch.enable_grad():
            p = self._run(inst, fn)[0, inst.pred]
            (g,) = torch.autograd.grad(p, leaf["r"])
        return g[0].sum(0).detach().cpu()


def resolve_cls_layer(model, cls_layer: int | None) -> int:
    """The 1-indexed layer whose [CLS] row is tested: ``cls_layer`` (config
    ``explanation.cls_layer``), or the last when it is None."""
    from analysis.core.models import shape_of

    n_layers, _ = shape_of(model)
    layer = cls_layer or n_layers  # 1-indexed
    if not 1 <= layer <= n_layers:
        raise ValueError(f"explanation.cls_layer = {layer}: the model has layers 1..{n_layers}")
    return layer


def run_erasure_cls(transformer, probe, layer: int, dev, seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Rule ``erasure_cls``: (single-weight rows, set rows, summary) for the [CLS] row of
    ``layer`` (1-indexed) on the ``dev`` sentences; items include the special tokens (their
    kind in ``top_kind`` / ``random_kind``)."""
    ex = ClsExplainer(transformer, probe, layer - 1)
    instances = [ex.instance(i, w, y) for i, (w, y) in enumerate(dev)]
    name = f"[CLS] row, layer {layer}"
    s, e, skipped = erasure_tables(instances, ex, seed)
    log.info("%d instances, %d skipped (fewer than 2 items)", len(s), skipped)
    kinds = {inst.id: inst.inputs["kinds"] for inst in instances}
    single = pd.DataFrame([{"encoder": name, "layer": layer, **r} for r in s])
    single["top_kind"] = [kinds[i][t] for i, t in zip(single.id, single.top_index)]
    single["random_kind"] = [kinds[i][t] for i, t in zip(single.id, single.random_index)]
    sets = pd.DataFrame([{"encoder": name, "layer": layer, "skipped_lt2_items": skipped, **r} for r in e])
    return single, sets, erasure_summary(single, sets)
