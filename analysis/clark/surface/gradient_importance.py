"""Gradient-based importance of attention to each token type (Clark et al. 2019, Fig. 3).

For every attention weight a = alpha_{l,h}(i -> j) of every (BERT-style masked) Wikipedia
segment, |d loss / d a| where loss is that segment's mean masked-LM cross-entropy; then the
mean of these magnitudes per layer (and per head) over the weights whose *attended* token j
is [CLS]-, [SEP]-, '.'/','-kind or other (kinds from the tokenizer, see
``models.token_kinds``). Padding rows and columns are excluded.

The attention probabilities are the tensors the eager attention returns with
``output_attentions=True``: in ``transformers``' ``eager_attention_forward`` they are the
post-softmax (post-dropout, the identity in eval mode) weights multiplied with the values,
so ``torch.autograd.grad(loss, attentions)`` is the gradient w.r.t. the weights actually
used (checked against finite differences in tests/unit/clark/surface/test_gradient_importance.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from analysis.clark.surface.mlm_head import encoder_inputs, head_module, masked_batches
from analysis.core.models import checked_attentions, shape_of
from analysis.shared.plots import new_figure

GROUPS = ("cls", "sep", "punct", "other")
KIND_GROUP = {"C": "cls", "S": "sep", "P": "punct"}


def masked_lm_loss(model, batch: dict, masks: list) -> tuple[torch.Tensor, tuple]:
    """Sum over the batch's segments of each segment's mean masked-LM cross-entropy, and
    the attentions of the forward pass (one (B, H, N, N) tensor per layer)."""
    out = model.base_model(**encoder_inputs(model, batch), output_attentions=True)
    atts = checked_attentions(model, out)
    h = out.last_hidden_state
    head = head_module(model)
    device = h.device
    losses = []
    for b, pos, tgt in masks:
        if len(pos) == 0:
            continue
        logits = head(h[b, torch.as_tensor(pos, device=device)])
        logits = logits if logits.dtype == torch.float64 else logits.float()
        losses.append(torch.nn.functional.cross_entropy(logits, torch.as_tensor(tgt, device=device)))
    if not losses:
        raise ValueError("no masked token in the batch")
    return torch.stack(losses).sum(), atts


def attention_gradients(model, batch: dict, masks: list) -> tuple[torch.Tensor, tuple, tuple]:
    """(loss, attentions, d loss / d attentions), one (B, H, N, N) tensor per layer."""
    loss, atts = masked_lm_loss(model, batch, masks)
    grads = torch.autograd.grad(loss, atts)
    return loss.detach(), tuple(a.detach() for a in atts), grads


def group_codes(kinds: str) -> np.ndarray:
    return np.array([GROUPS.index(KIND_GROUP.get(k, "other")) for k in kinds], dtype=np.int64)


def accumulate(
    model, tokenizer, items: list[dict], seed: int, prob: float, batch_size: int, log=None
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Mean |gradient| and mean attention per (layer, attended-token group) and per
    (layer, head, group) over ``items`` (encoded segments: input_ids, kinds, seq_ids, n)."""
    L, H = shape_of(model)
    G = len(GROUPS)
    sum_g = np.zeros((L, H, G))
    sum_a = np.zeros((L, H, G))
    count = np.zeros((L, H, G))
    device = next(model.parameters()).device
    for p in model.parameters():
        p.requires_grad_(True)  # the graph must reach the attentions; no parameter is updated
    total_loss, n_seg, n_masked = 0.0, 0, 0
    for batch, masks, idx in masked_batches(items, tokenizer, seed, prob, batch_size, device):
        loss, atts, grads = attention_gradients(model, batch, masks)
        total_loss += loss.item()
        for b, i in enumerate(idx):
            _add_segment(sum_g, sum_a, count, grads, atts, b, items[i], device)
            n_seg += 1
            n_masked += len(masks[b][1])
        if log is not None:
            log.info("gradients: %d/%d segments, mean masked-LM loss %.4f", n_seg, len(items), total_loss / n_seg)
    for p in model.parameters():
        p.requires_grad_(False)
    per_layer, per_head = _tables(sum_g, sum_a, count)
    counts = {"segments": n_seg, "masked_tokens": n_masked, "mean_mlm_loss": total_loss / max(n_seg, 1)}
    return per_layer, per_head, counts


def _add_segment(sum_g, sum_a, count, grads, atts, b: int, item: dict, device) -> None:
    """Add row ``b`` of a batch (segment ``item``) to the per (layer, head, group) sums of
    |gradient| and attention over its n x n weights, grouped by attended token."""
    n = item["n"]
    G = len(GROUPS)
    codes = torch.as_tensor(group_codes(item["kinds"]), device=device)
    onehot = torch.nn.functional.one_hot(codes, G).double()  # (n, G)
    for layer in range(sum_g.shape[0]):
        g = grads[layer][b, :, :n, :n].abs().double().sum(1)  # (H, n): summed over query rows
        a = atts[layer][b, :, :n, :n].double().sum(1)
        sum_g[layer] += (g @ onehot).cpu().numpy()
        sum_a[layer] += (a @ onehot).cpu().numpy()
        count[layer] += n * onehot.sum(0).cpu().numpy()[None, :]


def _tables(sum_g: np.ndarray, sum_a: np.ndarray, count: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per layer, per head) tables of mean |gradient| and mean attention from (L, H, G) sums."""
    L, H, G = sum_g.shape
    layer, head, grp = np.meshgrid(np.arange(L), np.arange(H), np.arange(G), indexing="ij")
    with np.errstate(invalid="ignore", divide="ignore"):
        per_head = pd.DataFrame(
            {
                "layer": layer.ravel() + 1,
                "head": head.ravel() + 1,
                "attended": np.array(GROUPS)[grp.ravel()],
                "mean_abs_grad": (sum_g / count).ravel(),
                "mean_attention": (sum_a / count).ravel(),
                "n_weights": count.ravel().astype(np.int64),
            }
        )
        sg, sa, c = sum_g.sum(1), sum_a.sum(1), count.sum(1)
        lay, grp2 = np.meshgrid(np.arange(L), np.arange(G), indexing="ij")
        per_layer = pd.DataFrame(
            {
                "layer": lay.ravel() + 1,
                "attended": np.array(GROUPS)[grp2.ravel()],
                "mean_abs_grad": (sg / c).ravel(),
                "mean_attention": (sa / c).ravel(),
                "n_weights": c.ravel().astype(np.int64),
            }
        )
    return per_layer, per_head


def plot_gradient_importance(per_layer: pd.DataFrame, title: str, labels: dict):
    """Clark Fig. 3: mean |d loss / d attention| (log scale) and mean attention per layer, one
    line per attended-token group (``labels``: group -> legend text)."""
    fig, axes = new_figure(9, 3.4, ncols=2, style="plain")
    styles = {"cls": ("C3", "s"), "sep": ("C4", "o"), "punct": ("C2", "^"), "other": ("0.4", "x")}
    for g in GROUPS:
        sub = per_layer[per_layer.attended == g].sort_values("layer")
        if sub.n_weights.sum() == 0:
            continue
        c, m = styles[g]
        axes[0].plot(sub.layer, sub.mean_abs_grad, color=c, marker=m, label=labels.get(g, g))
        axes[1].plot(sub.layer, sub.mean_attention, color=c, marker=m, label=labels.get(g, g))
    axes[0].set_ylabel("mean |d loss / d attention|", fontsize=9)
    axes[1].set_ylabel("mean attention weight", fontsize=9)
    axes[0].set_yscale("log")
    axes[0].set_title("gradient magnitude by attended token", fontsize=10)
    axes[1].set_title("attention by attended token (same weights)", fontsize=10)
    layers = sorted(per_layer.layer.unique())
    for ax in axes:
        ax.set_xlabel("layer", fontsize=9)
        ax.set_xticks(layers)
        ax.tick_params(labelsize=8)
    axes[1].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
