"""How fine-tuning changes the attention maps (Kovaleva et al. 2019, Fig. 4 and 5).

``head_cosines``: per head, the cosine similarity between the flattened map of the
pre-trained and of the fine-tuned model on the same input; ``mean_cosines`` averages it
over paired examples of two shards (the same dev inputs, checked token by token).
``special_attention_by_layer``: per layer, the mean attention to [CLS], [SEP] and '.'/','
(from every token, token-weighted as in ``analysis.shared.attention_stats``). Layers/heads 1-indexed.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from analysis.shared.attention_stats import accumulate, by_layer, per_head_table, special_tokens_stats


def head_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(layers, heads) cosine similarity of the flattened (n, n) maps of ``a`` and ``b``."""
    if a.shape != b.shape:
        raise ValueError(f"maps of different shapes {a.shape} and {b.shape}")
    a = a.reshape(*a.shape[:2], -1).astype(np.float64)
    b = b.reshape(*b.shape[:2], -1).astype(np.float64)
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def mean_cosines(pretrained: Iterable, finetuned: Iterable, keep: list | None = None) -> tuple[pd.DataFrame, int]:
    """Per-head mean (and standard deviation) over examples of ``head_cosines``; the two
    example streams must hold the same inputs in the same order. ``keep``: a list that gets
    every example's (layers, heads) cosines (for the replicates, ``analysis.kovaleva.replicates``)."""
    total = total_sq = None
    n = 0
    for x, y in zip(pretrained, finetuned, strict=True):
        if x.id != y.id or x.input_ids != y.input_ids:
            raise ValueError(f"pre-trained example {x.id} and fine-tuned example {y.id} are not the same input")
        c = head_cosines(x.attn, y.attn)
        if keep is not None:
            keep.append(c)
        total = c if total is None else total + c
        total_sq = c**2 if total_sq is None else total_sq + c**2
        n += 1
    if not n:
        raise ValueError("no examples to compare")
    mean = total / n
    std = np.sqrt(np.maximum(total_sq / n - mean**2, 0.0))
    L, H = mean.shape
    layer, head = np.meshgrid(np.arange(1, L + 1), np.arange(1, H + 1), indexing="ij")
    return pd.DataFrame(
        {
            "layer": layer.ravel(),
            "head": head.ravel(),
            "cosine": mean.ravel(),
            "cosine_std": std.ravel(),
            "n_examples": n,
        }
    ), n


def special_attention_by_layer(examples: Iterable, keep: list | None = None) -> tuple[pd.DataFrame, int]:
    """Per layer: mean attention to [CLS] (``cls``), [SEP] (``sep``), '.'/',' (``punct``).
    ``keep``: a list that gets every example's per-head sums (``special_tokens_stats``)."""

    def stats(attn, kinds):
        s = special_tokens_stats(attn, kinds)
        if keep is not None:
            keep.append(s)
        return s

    sums, n = accumulate(examples, stats)
    t = by_layer(per_head_table(sums), ["cls", "sep", "punct"])
    t["n_examples"] = n
    return t, n
