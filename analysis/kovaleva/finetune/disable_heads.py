"""Disabling attention heads (Kovaleva et al. 2019, Fig. 6).

A disabled head attends uniformly to the real (non-padding) tokens of its input: its
probabilities become 1/L over the L real tokens, so its output at every position is the
mean of its value vectors over those tokens. Everything else in the model is unchanged.

Mechanism (transformers 5.x; ``head_mask`` is deprecated there), for any encoder family:
``UniformHeads`` hooks the head sites that ``analysis.shared.attention_modules`` finds by what
they compute (the value projection, read; the output projection, whose input holds the heads'
contexts side by side, head-major): on the target layer the disabled heads' slices of that input
become the masked mean of their value vectors. The attention maps a forward pass returns stay the
unmodified ones. Which heads are disabled is a boolean (batch, heads) matrix, so one batch can
hold one copy of the inputs per disabled head ("variants") and every variant runs in one pass.

Cost: the layers below the target layer do not depend on which of its heads is disabled,
so their output is computed once per batch (``output_hidden_states``) and only the layers
from the target upwards are re-run per variant (``start_at_layer``): L(L+1)/2 instead of
L^2 layer passes per head for an L-layer model. Whether starting at a layer reproduces the
model is checked on the first batch (a family whose encoder loop treats its first layer apart,
or whose layers are one shared module, re-runs every layer instead).
``tests/unit/kovaleva/finetune/test_disable_heads.py`` checks both against a hand-written
re-implementation of a BERT layer with uniform probabilities.
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np
import pandas as pd
import torch

from analysis.core.models import shape_of
from analysis.shared.attention_modules import HeadSiteHooks, start_at_layer

log = logging.getLogger(__name__)


class UniformHeads(HeadSiteHooks):
    """Context manager: within it, ``set(layer, disable, key_mask)`` makes the heads marked in
    ``disable`` (bool (batch, heads)) of ``layer`` (0-based) attend uniformly over the tokens
    where ``key_mask`` (bool (batch, n)) is true. ``set(None)`` restores normal behaviour."""

    def __init__(self, model):
        super().__init__(model)
        self.n_layers = len(self.sites)
        self.layer = None
        self.disable = None
        self.key_mask = None
        self._v = None
        self.calls = 0  # how many times a head was actually replaced (a guard for the tests)

    def set(self, layer: int | None, disable: torch.Tensor | None = None, key_mask: torch.Tensor | None = None):
        if layer is not None:
            if not 0 <= layer < self.n_layers:
                raise ValueError(f"layer {layer} out of range 0..{self.n_layers - 1}")
            if disable.shape[-1] != self.n_heads or disable.shape[0] != key_mask.shape[0]:
                raise ValueError(f"disable {tuple(disable.shape)} and key_mask {tuple(key_mask.shape)} do not match")
        self.layer, self.disable, self.key_mask = layer, disable, key_mask
        return self

    def __exit__(self, *exc):
        self._v = None
        return super().__exit__(*exc)

    def on_values(self, layer, values):
        if layer == self.layer:
            self._v = values

    def on_contexts(self, layer, contexts):
        if layer != self.layer:
            return None
        mask = self.key_mask.to(self._v.dtype)
        uniform = mask / mask.sum(-1, keepdim=True)  # (b, n)
        mean_v = torch.einsum("bk,bkhd->bhd", uniform, self._v)  # (b, heads, d)
        off = self.disable.to(contexts.device)
        self.calls += 1
        return torch.where(off[:, None, :, None], mean_v[:, None], contexts)


def can_start_at_layer(model, batch: dict, out) -> bool:
    """Whether ``start_at_layer`` at every layer reproduces ``out`` (the model's output on ``batch``
    with its hidden states) within float noise; False (said in the log) where it cannot."""
    n_layers = shape_of(model)[0]
    try:
        for layer in range(1, n_layers):
            with start_at_layer(model, layer, out.hidden_states[layer]):
                logits = model(**batch).logits
            if not torch.allclose(logits, out.logits, rtol=1e-4, atol=1e-5):
                raise NotImplementedError(f"starting at layer {layer + 1} changes the logits")
    except NotImplementedError as err:
        log.warning("%s: every layer is re-run per disabled head (%s)", type(model).__name__, err)
        return False
    return True


def variants(n_layers: int, n_heads: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every (layer, disabled heads) to score, 0-based: each head alone, then the whole layer."""
    out = []
    for layer in range(n_layers):
        out.extend((layer, (h,)) for h in range(n_heads))
        out.append((layer, tuple(range(n_heads))))
    return out


@torch.inference_mode()
def disabled_logits(model, batches, max_batch: int, cache: bool = True, progress: bool = True, which=None):
    """Logits of the unmodified model and of every variant (see ``variants``; ``which``: these
    (layer, disabled heads) only, 0-based) on ``batches`` (dicts of padded model inputs, no labels).
    Returns (base (N, labels), per-variant (V, N, labels), cost dict). ``max_batch`` caps the rows
    of one forward pass (examples x variants); ``cache=False`` re-runs every layer (for checking)."""
    from tqdm.auto import tqdm

    n_layers, n_heads = shape_of(model)
    var = variants(n_layers, n_heads) if which is None else [(int(lay), tuple(hs)) for lay, hs in which]
    base_out, var_out = [], [[] for _ in var]
    cost = {"examples": 0, "forward_passes": 0, "layer_passes": 0, "variants": len(var)}
    checked = not cache
    t0 = time.perf_counter()
    with UniformHeads(model) as uh:
        for batch in tqdm(batches, desc="disabling heads", mininterval=10, disable=not progress):
            b = batch["input_ids"].shape[0]
            out = model(**batch, output_hidden_states=cache)
            if not checked:  # once, on the first batch
                cache, checked = can_start_at_layer(model, batch, out), True
            base_out.append(out.logits.double().cpu().numpy())
            cost["examples"] += b
            cost["forward_passes"] += 1
            cost["layer_passes"] += b * n_layers
            key_mask = batch["attention_mask"].bool()
            per_pass = max(1, max_batch // b)
            for layer in range(n_layers):
                todo = [i for i, (lay, _) in enumerate(var) if lay == layer]
                for start in range(0, len(todo), per_pass):
                    chunk = todo[start : start + per_pass]
                    r = len(chunk)
                    disable = torch.zeros((r * b, n_heads), dtype=torch.bool, device=key_mask.device)
                    for j, v in enumerate(chunk):
                        disable[j * b : (j + 1) * b, list(var[v][1])] = True
                    inputs = {k: v.repeat(r, *([1] * (v.dim() - 1))) for k, v in batch.items()}
                    uh.set(layer, disable, key_mask.repeat(r, 1))
                    if cache:
                        hidden = out.hidden_states[layer].repeat(r, 1, 1)
                        with start_at_layer(model, layer, hidden):
                            logits = model(**inputs).logits
                        cost["layer_passes"] += r * b * (n_layers - layer)
                    else:
                        logits = model(**inputs).logits
                        cost["layer_passes"] += r * b * n_layers
                    uh.set(None)
                    cost["forward_passes"] += 1
                    logits = logits.double().cpu().numpy()
                    for j, v in enumerate(chunk):
                        var_out[v].append(logits[j * b : (j + 1) * b])
    cost["seconds"] = time.perf_counter() - t0
    cost["cached"] = bool(cache)
    cost["layer_passes_without_cache"] = cost["examples"] * n_layers * (1 + len(var))
    return np.concatenate(base_out), np.stack([np.concatenate(v) for v in var_out]), cost


def score_table(task: str, base_logits, var_logits, gold, n_layers: int, n_heads: int) -> pd.DataFrame:
    """One row per (task, metric, variant): scope ``head`` (layer, head 1-indexed) or
    ``layer`` (head empty), the score, the unmodified score, their difference, and
    ``changed``: the fraction of dev predictions that changed (classification) or the mean
    absolute change of the predicted score (regression); for classification also ``gained``
    / ``lost`` (examples that became right / wrong) and ``mcnemar_p`` (exact two-sided
    McNemar test on them: is the change more than noise?)."""
    from analysis.core.glue import metrics
    from analysis.core.glue.tasks import get_task

    t = get_task(task)
    base_pred = metrics.predictions(task, base_logits)
    base = metrics.evaluate(task, base_pred, gold)
    rows = []
    for k, ((layer, heads), logits) in enumerate(zip(variants(n_layers, n_heads), var_logits)):
        whole_layer = k % (n_heads + 1) == n_heads  # each layer: its heads one by one, then all of them
        pred = metrics.predictions(task, logits)
        scores = metrics.evaluate(task, pred, gold)
        changed = float(np.mean(np.abs(pred - base_pred))) if t.is_regression else float(np.mean(pred != base_pred))
        if t.is_regression:
            gained = lost = pd.NA
            p_value = np.nan
        else:
            right, was_right = pred == np.asarray(gold), base_pred == np.asarray(gold)
            gained, lost = int(np.sum(right & ~was_right)), int(np.sum(~right & was_right))
            p_value = mcnemar_p(gained, lost)
        for metric in t.metrics:
            rows.append(
                {
                    "task": task,
                    "metric": metric,
                    "scope": "layer" if whole_layer else "head",
                    "layer": layer + 1,
                    "head": pd.NA if whole_layer else heads[0] + 1,
                    "score": scores[metric],
                    "unmodified": base[metric],
                    "change": scores[metric] - base[metric],
                    "changed": changed,
                    "gained": gained,
                    "lost": lost,
                    "mcnemar_p": p_value,
                    "n_examples": len(gold),
                }
            )
    out = pd.DataFrame(rows)
    for c in ("head", "gained", "lost"):
        out[c] = out[c].astype("Int64")
    return out


def mcnemar_p(gained: int, lost: int) -> float:
    """Exact two-sided McNemar test: P(a split at least this uneven of the gained + lost
    discordant examples if each went either way with probability 1/2)."""
    n, k = gained + lost, min(gained, lost)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)
