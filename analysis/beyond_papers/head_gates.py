"""Gradient head importance and pruning (Michel, Levy & Neubig 2019, "Are Sixteen Heads
Really Better than One?", pmichel31415/are-16-heads-really-better-than-1).

Every head's output is multiplied by a gate xi_{l,h} (transformers 5 has no ``head_mask``):
``HeadGates`` hooks the head sites that ``analysis.shared.attention_modules`` finds in any
encoder family, at the same point as ``UniformHeads``: the heads' contexts ``(batch, n, heads,
d)``, the input of each layer's attention output projection. Gating
the context equals gating the attention probabilities (context = probs @ values), which is
what the authors' ``head_mask`` did. Gates are per input row (``(batch, layers, heads)``),
so one backward pass of the summed per-example losses gives every example's own gradient
d L_x / d xi at xi = 1 (``head_importance``): importance I_h = mean over x of |d L_x / d xi_h|,
L_x the model's own loss (cross-entropy; squared error for regression). The authors' code takes
the absolute value per token instead (``abs_per="token"``: a gate per token and head, I_h = the
sum over tokens of |d L_x / d xi_{h,t}| divided by the number of tokens); ``normalize_by_layer``
divides each layer's scores by their L2 norm, as their pruning command does
(``--normalize_pruning_by_layer``), so that heads of different layers compete on one scale.

Pruning (``pruning_curve``): heads are removed (gate 0, as the authors' masks) in a given
order, a fraction ``step`` of all heads at a time, and the dev score is measured after each
step; the order is ascending importance (least important first) or a seeded random one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from analysis.core.glue import metrics
from analysis.core.glue.tasks import get_task
from analysis.core.models import shape_of
from analysis.shared.attention_modules import HeadSiteHooks


class HeadGates(HeadSiteHooks):
    """Context manager: within it, every head's output context is multiplied by
    ``self.gates[:, layer, head]`` (a (batch, layers, heads) tensor set with ``set``), or per
    token by ``self.gates[:, token, layer, head]`` (a (batch, tokens, layers, heads) tensor)."""

    def __init__(self, model):
        super().__init__(model)
        self.n_layers = len(self.sites)
        self.gates = None

    def set(self, gates: torch.Tensor | None):
        if gates is not None and (
            gates.dim() not in (3, 4) or tuple(gates.shape[-2:]) != (self.n_layers, self.n_heads)
        ):
            raise ValueError(f"gates {tuple(gates.shape)}: expected (batch, [tokens,] {self.n_layers}, {self.n_heads})")
        self.gates = gates
        return self

    def on_contexts(self, layer, contexts):
        if self.gates is None:
            return None
        if self.gates.dim() == 4:
            gate = self.gates[:, :, layer].to(contexts.dtype)[:, :, :, None]  # (b, n, heads, 1)
        else:
            gate = self.gates[:, layer].to(contexts.dtype)[:, None, :, None]  # (b, 1, heads, 1)
        return contexts * gate


def example_losses(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Each example's loss as the fine-tuning used it: cross-entropy, or squared error for a
    one-output (regression) head."""
    if logits.shape[-1] == 1:
        return (logits[:, 0] - labels.to(logits.dtype)) ** 2
    return torch.nn.functional.cross_entropy(logits, labels, reduction="none")


ABS_PER = ("example", "token")


def head_importance(model, batches, abs_per: str = "example") -> tuple[np.ndarray, np.ndarray]:
    """(importance, mean dL_x/dxi), each (layers, heads), over the examples of ``batches`` (dicts
    of padded model inputs with ``labels``); gates at 1. ``abs_per="example"``: importance = mean
    over examples of |dL_x/dxi_h| (the paper's formula); ``"token"``: a gate per token, importance
    = sum of |dL_x/dxi_{h,t}| over every (unpadded) token / the number of tokens (the authors' code).
    The signed mean is per example either way (a token's gradients sum to its example's)."""
    if abs_per not in ABS_PER:
        raise ValueError(f"abs_per {abs_per!r}: one of {ABS_PER}")
    n_layers, n_heads = shape_of(model)
    abs_sum, signed_sum, count, tokens = np.zeros((n_layers, n_heads)), np.zeros((n_layers, n_heads)), 0, 0
    with HeadGates(model) as hg:
        for batch in batches:
            inputs = {k: v for k, v in batch.items() if k != "labels"}
            b, n = inputs["input_ids"].shape
            shape = (b, n, n_layers, n_heads) if abs_per == "token" else (b, n_layers, n_heads)
            gates = torch.ones(shape, requires_grad=True)
            hg.set(gates.to(batch["labels"].device))
            losses = example_losses(model(**inputs).logits, batch["labels"])
            (grad,) = torch.autograd.grad(losses.sum(), gates)
            grad = grad.double().cpu().numpy()
            if abs_per == "token":
                real = inputs["attention_mask"].cpu().numpy().astype(bool)  # padding carries no gradient anyway
                abs_sum += np.abs(grad[real]).sum(0)
                tokens += int(real.sum())
                grad = grad.sum(1)  # per example
            else:
                abs_sum += np.abs(grad).sum(0)
            signed_sum += grad.sum(0)
            count += b
            hg.set(None)
    if count == 0:
        raise ValueError("no examples to compute head importance on")
    return abs_sum / (tokens if abs_per == "token" else count), signed_sum / count


def normalize_by_layer(importance: np.ndarray) -> np.ndarray:
    """Each layer's scores (layers, heads) divided by their L2 norm (a layer of zeros stays 0)."""
    norm = np.sqrt((importance**2).sum(-1, keepdims=True))
    return importance / (norm + 1e-20)


@torch.inference_mode()
def gated_logits(model, batches, keep: np.ndarray) -> np.ndarray:
    """Logits (N, labels) of the model with the heads where ``keep`` (layers, heads) is False
    removed (gate 0), over ``batches`` (their order)."""
    out = []
    with HeadGates(model) as hg:
        for batch in batches:
            inputs = {k: v for k, v in batch.items() if k != "labels"}
            b = inputs["input_ids"].shape[0]
            gate = torch.as_tensor(keep, dtype=torch.float32, device=inputs["input_ids"].device)
            hg.set(gate.expand(b, *gate.shape))
            out.append(model(**inputs).logits.double().cpu().numpy())
            hg.set(None)
    return np.concatenate(out)


def pruning_steps(n_heads_total: int, step: float) -> list[int]:
    """Numbers of heads removed after each step: 0, then round(k * step * total) up to all."""
    k_max = int(np.ceil(1.0 / step - 1e-9))
    return sorted({min(n_heads_total, int(round(k * step * n_heads_total))) for k in range(k_max + 1)})


def pruning_curve(model, batches, gold, task: str, order: np.ndarray, step: float) -> pd.DataFrame:
    """Score (every metric of ``task``) after removing the first k heads of ``order`` (flat
    indices layer * heads + head), k from ``pruning_steps``."""
    n_layers, n_heads = shape_of(model)
    rows = []
    for k in pruning_steps(n_layers * n_heads, step):
        keep = np.ones(n_layers * n_heads, dtype=bool)
        keep[order[:k]] = False
        pred = metrics.predictions(task, gated_logits(model, batches, keep.reshape(n_layers, n_heads)))
        for metric, value in metrics.evaluate(task, pred, gold).items():
            rows.append({"pruned": k, "fraction": k / (n_layers * n_heads), "metric": metric, "score": value})
    return pd.DataFrame(rows)


def pruning_table(model, batches, gold, task: str, importance: np.ndarray, step: float, n_random: int, seed: int):
    """Pruning curves of ``task``: ascending importance (ties by layer then head), then
    ``n_random`` seeded random orders (draw 1..n)."""
    flat = importance.ravel()
    orders = [("importance", 0, np.argsort(flat, kind="stable"))]
    rng = np.random.default_rng(seed)
    orders += [("random", d + 1, rng.permutation(flat.size)) for d in range(n_random)]
    frames = []
    for name, draw, order in orders:
        curve = pruning_curve(model, batches, gold, task, order, step)
        frames.append(curve.assign(task=task, order=name, draw=draw))
    out = pd.concat(frames, ignore_index=True)
    out["main_metric"] = out.metric == get_task(task).main_metric
    return out[["task", "order", "draw", "pruned", "fraction", "metric", "main_metric", "score"]]


def importance_table(
    task: str, abs_mean: np.ndarray, signed_mean: np.ndarray, n_examples: int, normalize: bool = False
) -> pd.DataFrame:
    """One row per head (layer, head 1-indexed): importance (L2-normalised per layer when
    ``normalize``; the order heads are pruned in), the raw score before it, mean signed gradient."""
    n_layers, n_heads = abs_mean.shape
    layer, head = np.meshgrid(np.arange(n_layers), np.arange(n_heads), indexing="ij")
    return pd.DataFrame(
        {
            "task": task,
            "layer": layer.ravel() + 1,
            "head": head.ravel() + 1,
            "importance": (normalize_by_layer(abs_mean) if normalize else abs_mean).ravel(),
            "importance_raw": abs_mean.ravel(),
            "mean_gradient": signed_mean.ravel(),
            "n_examples": n_examples,
        }
    )
