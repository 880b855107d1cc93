"""Per-head statistics of attention maps, summed over a corpus and divided into means
(Clark et al. 2019 sec. 3: Fig. 1, 2 and 4; Kovaleva et al. 2019 Fig. 5 reads the same
special-token shares of fine-tuned maps).

Each ``*_stats`` function takes one example's maps ``attn`` (layers, heads, n, n), rows
summing to 1, plus its token ``kinds`` (C/S/P/X/O, see ``analysis.core.models.token_kinds``)
and returns per-head sums and counts; ``accumulate`` adds them over a corpus and
``per_head_table`` divides, giving means over all tokens of all segments (token-weighted,
as in the paper). Layers and heads are 1-indexed in the tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd


def _mask(kinds: str, kind: str) -> np.ndarray:
    return np.frombuffer(kinds.encode(), dtype=np.uint8) == ord(kind)


def relative_position_stats(attn: np.ndarray, kinds: str | None = None) -> dict:
    """Attention from each token to the previous token, itself and the next token."""
    n = attn.shape[-1]
    i = np.arange(n)
    return {
        "prev": attn[..., i[1:], i[1:] - 1].sum(-1),
        "n_prev": np.full(attn.shape[:2], n - 1.0),
        "current": attn[..., i, i].sum(-1),
        "n_current": np.full(attn.shape[:2], float(n)),
        "next": attn[..., i[:-1], i[:-1] + 1].sum(-1),
        "n_next": np.full(attn.shape[:2], n - 1.0),
    }


def special_tokens_stats(attn: np.ndarray, kinds: str) -> dict:
    """Attention from every token to [CLS], to [SEP] and to '.' or ','."""
    n = attn.shape[-1]
    return {
        "cls": attn[..., :, _mask(kinds, "C")].sum((-1, -2)),
        "sep": attn[..., :, _mask(kinds, "S")].sum((-1, -2)),
        "punct": attn[..., :, _mask(kinds, "P")].sum((-1, -2)),
        "n_tokens": np.full(attn.shape[:2], float(n)),
    }


def sep_attention_stats(attn: np.ndarray, kinds: str) -> dict:
    """Attention to [SEP] tokens from [SEP] tokens and from all other tokens; likewise to [CLS] from
    [CLS] and from all other tokens (for a model whose attention sink is [CLS], not [SEP])."""
    out = {}
    for kind, name, others in (("S", "sep", "n_other_rows"), ("C", "cls", "n_noncls_rows")):
        own = _mask(kinds, kind)
        to_own = attn[..., :, own].sum(-1)  # (L, H, n)
        out[f"{name}_from_{name}"] = to_own[..., own].sum(-1)
        out[f"n_{name}_rows"] = np.full(attn.shape[:2], float(own.sum()))
        out[f"{name}_from_other"] = to_own[..., ~own].sum(-1)
        out[others] = np.full(attn.shape[:2], float((~own).sum()))
    return out


def entropy_rows(attn: np.ndarray) -> np.ndarray:
    """Entropy (nats) of every attention distribution: (..., n)."""
    a = attn.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(a > 0, a * np.log(a), 0.0).sum(-1)


def entropy_stats(attn: np.ndarray, kinds: str) -> dict:
    """Entropy of all rows, of [CLS] rows only, and of uniform attention over the same rows."""
    n = attn.shape[-1]
    ent = entropy_rows(attn)
    cls = _mask(kinds, "C")
    return {
        "entropy": ent.sum(-1),
        "uniform_entropy": np.full(attn.shape[:2], n * np.log(n)),
        "n_rows": np.full(attn.shape[:2], float(n)),
        "entropy_cls": ent[..., cls].sum(-1),
        "uniform_entropy_cls": np.full(attn.shape[:2], cls.sum() * np.log(n)),
        "n_cls_rows": np.full(attn.shape[:2], float(cls.sum())),
    }


def accumulate(examples: Iterable, stats: Callable) -> tuple[dict, int]:
    """Sum ``stats(ex.attn, ex.kinds)`` over examples in float64; returns (sums, n_examples)."""
    total: dict = {}
    count = 0
    for ex in examples:
        for k, v in stats(ex.attn, ex.kinds).items():
            total[k] = total.get(k, 0.0) + np.asarray(v, dtype=np.float64)
        count += 1
    if not count:
        raise ValueError("no examples to accumulate")
    return total, count


# metric -> the count it is divided by
RATIOS = {
    "prev": "n_prev",
    "current": "n_current",
    "next": "n_next",
    "cls": "n_tokens",
    "sep": "n_tokens",
    "punct": "n_tokens",
    "sep_from_sep": "n_sep_rows",
    "sep_from_other": "n_other_rows",
    "cls_from_cls": "n_cls_rows",
    "cls_from_other": "n_noncls_rows",
    "entropy": "n_rows",
    "uniform_entropy": "n_rows",
    "entropy_cls": "n_cls_rows",
    "uniform_entropy_cls": "n_cls_rows",
}


def per_segment(key: str) -> bool:
    """Whether a statistic is the same for every head of a segment (its counts and uniform
    baselines, ``np.full`` above): one value per segment is kept for the bootstrap."""
    return key.startswith(("n_", "uniform_"))


def per_head_table(sums: dict) -> pd.DataFrame:
    """Means per head as a tidy table: layer, head (1-indexed), one column per metric,
    then the counts they were averaged over."""
    any_arr = next(iter(sums.values()))
    L, H = any_arr.shape
    layer, head = np.meshgrid(np.arange(1, L + 1), np.arange(1, H + 1), indexing="ij")
    cols = {"layer": layer.ravel(), "head": head.ravel()}
    for k, v in sums.items():
        if k in RATIOS:
            denom = sums[RATIOS[k]]
            with np.errstate(divide="ignore", invalid="ignore"):
                cols[k] = np.where(denom > 0, v / denom, np.nan).ravel()
    for k, v in sums.items():
        if k.startswith("n_"):
            cols[k] = v.ravel().astype(np.int64)
    return pd.DataFrame(cols)


def by_layer(table: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """Layer means of per-head metrics (unweighted mean over the layer's heads)."""
    return table.groupby("layer", as_index=False)[metrics].mean()
