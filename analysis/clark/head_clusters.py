"""Clustering attention heads by behaviour (Clark et al. 2019 sec. 6, Fig. 6).

Distance between heads i and j = the sum, over every token of every segment, of the
Jensen-Shannon divergence (nats) between head i's and head j's attention distribution from
that token:

    d(i, j) = sum_t JS(P_i[t] || P_j[t]),   JS(p, q) = H(m) - (H(p) + H(q)) / 2,  m = (p + q) / 2.

JS is finite without smoothing (m > 0 wherever p > 0; 0 log 0 = 0 by clamping at 1e-30 before the log). An
optional smoothing ``eps`` mixes every row with the uniform distribution,
p' = (p + eps) / (1 + n eps), as the authors' code does against log(0); the default
``eps = 0`` keeps the exact divergence (documented in the figure caption).

Work per segment is O(heads^2 n^2): every head pair at once (upper triangle, in blocks of
rows to bound memory), element-wise in float32, each segment's per-pair sums added into a
float64 accumulator. Maps are streamed from the shards one segment at a time.

Behaviour labels come from the per-head surface tables of Clark sec. 3 (``behaviour_table``:
mean attention to the previous / next token, to [CLS]-, [SEP]- and '.'/','-kind tokens, mean
entropy relative to uniform, over every wiki segment) and thresholds from the config;
``plot_head_clusters`` draws Fig. 6.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from analysis.shared.plots import new_figure

BEHAVIOURS = ("next", "prev", "cls", "sep", "punct", "broad", "other")
BEHAVIOUR_LABELS = {
    "next": "next token",
    "prev": "previous token",
    "cls": "[CLS]",
    "sep": "[SEP]",
    "punct": ". or ,",
    "broad": "broad",
    "other": "other",
}


def smooth(attn: torch.Tensor, eps: float) -> torch.Tensor:
    """Mix each row (last axis) with the uniform distribution: (p + eps) / (1 + n eps)."""
    if eps < 0:
        raise ValueError(f"smoothing eps must be >= 0, got {eps}")
    if eps == 0:
        return attn
    n = attn.shape[-1]
    return (attn + eps) / (1.0 + n * eps)


class JSWorkspace:
    """The two scratch buffers of ``pairwise_js``, kept across the segments of one pass.

    Allocating them afresh for every segment (tens of MB each at bert-base sizes) let glibc's
    heap grow by one pair of buffers per segment on some runs (its mmap threshold adapts to the
    freed size; measured: 0.5 GB or 4 GB peak for the same 450 segments, at random): one
    workspace per pass makes the peak independent of the number of segments."""

    def __init__(self, dtype=torch.float32):
        self.dtype = dtype
        self._flat: tuple[torch.Tensor, torch.Tensor] | None = None

    def buffers(self, shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
        """Two tensors of ``shape`` viewing the workspace (grown when a segment needs more)."""
        size = int(np.prod(shape))
        if self._flat is None or self._flat[0].numel() < size:
            self._flat = (torch.empty(size, dtype=self.dtype), torch.empty(size, dtype=self.dtype))
        return self._flat[0][:size].view(shape), self._flat[1][:size].view(shape)


def pairwise_js(
    attn, eps: float = 0.0, block_elems: int = 2**22, dtype=torch.float32, work: JSWorkspace | None = None
) -> np.ndarray:
    """Sum over rows of the JS divergence between every pair of heads.

    ``attn``: (K, n, n) attention of K heads on one segment, rows summing to 1.
    Returns a symmetric (K, K) float64 array with a zero diagonal (nats).

    Uses JS(p, q) = (S(p) + S(q)) / 2 - S(m) with S(p) = sum p log p; every S(m) of the
    upper triangle is computed at once for a block of rows of heads (two buffers of
    ``block_elems`` floats, from ``work`` when a pass over many segments gives one);
    0 log 0 = 0 (values are clamped at 1e-30 before the log).
    """
    a = torch.as_tensor(np.asarray(attn), dtype=dtype)
    if a.ndim != 3 or a.shape[1] != a.shape[2]:
        raise ValueError(f"expected maps of shape (heads, n, n), got {tuple(a.shape)}")
    a = smooth(a, eps).contiguous()
    K, n = a.shape[0], a.shape[1]
    rows = max(1, min(K, block_elems // max(1, K * n * n)))
    if work is None or work.dtype != dtype:
        work = JSWorkspace(dtype)
    buf, lg = work.buffers((rows, K, n, n))
    s_m = torch.zeros(K, K, dtype=torch.float64)  # S((p_i + p_j) / 2), upper triangle
    for i0 in range(0, K, rows):
        i1 = min(K, i0 + rows)
        m, l = buf[: i1 - i0, : K - i0], lg[: i1 - i0, : K - i0]
        torch.add(a[i0:i1, None], a[None, i0:], out=m)
        m.mul_(0.5)
        torch.log(m.clamp_min_(1e-30), out=l)
        l.mul_(m)
        s_m[i0:i1, i0:] = l.sum((2, 3)).double()
    s_self = torch.diagonal(s_m).clone()  # m = p when i == j
    out = torch.triu(0.5 * s_self[:, None] + 0.5 * s_self[None, :] - s_m)
    out = out + out.T
    out.fill_diagonal_(0.0)
    return out.clamp_(min=0.0).numpy()


def behaviour_table(relative_position: pd.DataFrame, special_tokens: pd.DataFrame, entropy: pd.DataFrame):
    """Per head (layer, head 1-indexed): the numbers behind the behaviour labels, taken from
    the surface tables (``relative_position``, ``special_tokens``, ``entropy``: every wiki
    segment), so that Fig. 6's colours agree with Clark sec. 3's tables."""
    keys = ["layer", "head"]
    t = (
        relative_position[[*keys, "prev", "next"]]
        .merge(special_tokens[[*keys, "cls", "sep", "punct"]], on=keys, validate="1:1")
        .merge(entropy[[*keys, "entropy", "uniform_entropy"]], on=keys, validate="1:1")
    )
    t["entropy_ratio"] = t["entropy"] / t["uniform_entropy"]
    return t.sort_values(keys, ignore_index=True)


def behaviour(row: pd.Series | dict, thresholds: dict) -> str:
    """First matching behaviour in order next, prev, [CLS], [SEP], punctuation, broad
    (``thresholds``: one per behaviour, config ``clark_clusters.thresholds``)."""
    for key in ("next", "prev", "cls", "sep", "punct"):
        if row[key] > thresholds[key]:
            return key
    if row["entropy_ratio"] > thresholds["broad"]:
        return "broad"
    return "other"


def distance_table(dist: np.ndarray, n_heads: int) -> pd.DataFrame:
    """Tidy table: one row per ordered head pair (layer_a, head_a, layer_b, head_b, js_sum)."""
    K = dist.shape[0]
    la, ha = np.divmod(np.repeat(np.arange(K), K), n_heads)
    lb, hb = np.divmod(np.tile(np.arange(K), K), n_heads)
    return pd.DataFrame(
        {
            "layer_a": la + 1,
            "head_a": ha + 1,
            "layer_b": lb + 1,
            "head_b": hb + 1,
            "js_sum": dist.ravel(),
        }
    )


def layer_blocks(dist: np.ndarray, n_layers: int, n_heads: int) -> np.ndarray:
    """Sums of the distances (..., K, K) between the heads of layer a and those of layer b: (..., L, L),
    a head's distance to itself left out (the pairs of ``layer_table``)."""
    d = np.asarray(dist, dtype=np.float64).reshape(*np.shape(dist)[:-2], n_layers, n_heads, n_layers, n_heads)
    blocks = d.sum((-3, -1))
    i = np.arange(n_layers)
    blocks[..., i, i] -= np.einsum("...ihih->...i", d)
    return blocks


def layer_table(blocks: np.ndarray, n_heads: int) -> pd.DataFrame:
    """One row per ordered layer pair (layer_a, layer_b, mean_js_sum: the mean ``js_sum`` of the
    pairs of different heads of the two layers, pairs) from ``layer_blocks`` (L, L); from (B, L, L),
    one table per replicate stacked with ``replicate`` (no pairs column). Every layer pair has as
    many head pairs (``n_heads``^2, or ``n_heads`` (``n_heads`` - 1) within a layer), so a mean over
    rows is the mean over the head pairs of ``distance_table``."""
    blocks = np.asarray(blocks, dtype=np.float64)
    L = blocks.shape[-1]
    pairs = np.full((L, L), float(n_heads * n_heads))
    np.fill_diagonal(pairs, n_heads * (n_heads - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(pairs > 0, blocks / pairs, np.nan)
    la, lb = np.meshgrid(np.arange(1, L + 1), np.arange(1, L + 1), indexing="ij")
    if blocks.ndim == 2:
        return pd.DataFrame(
            {"layer_a": la.ravel(), "layer_b": lb.ravel(), "mean_js_sum": mean.ravel(), "pairs": pairs.ravel()}
        ).astype({"pairs": np.int64})
    B = len(blocks)
    return pd.DataFrame(
        {
            "layer_a": np.tile(la.ravel(), B),
            "layer_b": np.tile(lb.ravel(), B),
            "mean_js_sum": mean.ravel(),
            "replicate": np.repeat(np.arange(B), L * L),
        }
    )


def mds_embedding(dist: np.ndarray, seed: int, n_init: int = 4) -> tuple[np.ndarray, float]:
    """2-D metric MDS of a precomputed distance matrix (scikit-learn, seeded)."""
    from sklearn.manifold import MDS

    kwargs = dict(n_components=2, random_state=seed, n_init=n_init)
    try:
        mds = MDS(metric="precomputed", init="random", **kwargs)  # scikit-learn >= 1.8
        xy = mds.fit_transform(dist)
    except TypeError:  # pragma: no cover - older scikit-learn
        mds = MDS(dissimilarity="precomputed", **kwargs)
        xy = mds.fit_transform(dist)
    return xy, float(mds.stress_)


def head_points(heads: pd.DataFrame, xy: np.ndarray, n_layers: int, n_heads: int, thresholds: dict) -> pd.DataFrame:
    """``behaviour_table``'s heads with their MDS coordinates (``xy``, in the distances'
    layer-major order) and behaviour labels."""
    if ((heads["layer"] - 1) * n_heads + heads["head"] - 1).tolist() != list(range(n_layers * n_heads)):
        raise ValueError(f"surface tables hold {len(heads)} heads, not the {n_layers} x {n_heads} of the shards")
    heads["x"], heads["y"] = xy[:, 0], xy[:, 1]
    heads["behaviour"] = heads.apply(behaviour, axis=1, thresholds=thresholds)
    return heads


def plot_head_clusters(points: pd.DataFrame, model: str, n_layers: int, subtitle: str, cls_token: str, sep_token: str):
    """Clark Fig. 6: MDS points of the heads coloured by behaviour (legend names [CLS] and [SEP]
    as ``cls_token``, ``sep_token``) and by layer."""
    names = {**BEHAVIOUR_LABELS, "cls": cls_token, "sep": sep_token}
    fig, axes = new_figure(10, 4.6, ncols=2, style="plain", sharex=True, sharey=True)
    palette = dict(zip(BEHAVIOURS, ["#1f77b4", "#ff7f0e", "#d62728", "#9467bd", "#2ca02c", "#8c564b", "#bbbbbb"]))
    ax = axes[0]
    for b in BEHAVIOURS:
        sub = points[points.behaviour == b]
        if len(sub):
            ax.scatter(
                sub.x,
                sub.y,
                s=28,
                c=palette[b],
                label=f"{names[b]} ({len(sub)})",
                edgecolors="k",
                linewidths=0.3,
                zorder=3 if b != "other" else 2,
            )
    ax.set_title("coloured by behaviour", fontsize=10)
    ax.legend(fontsize=8, loc="best", framealpha=0.8)
    ax = axes[1]
    sc = ax.scatter(
        points.x, points.y, s=28, c=points.layer, cmap="viridis", vmin=1, vmax=n_layers, edgecolors="k", linewidths=0.3
    )
    cb = fig.colorbar(sc, ax=ax, ticks=range(1, n_layers + 1))
    cb.set_label("layer", fontsize=9)
    cb.ax.tick_params(labelsize=8)
    ax.set_title("coloured by layer", fontsize=10)
    for ax in axes:
        ax.set_xlabel("MDS dimension 1", fontsize=9)
        ax.tick_params(labelsize=8)
    axes[0].set_ylabel("MDS dimension 2", fontsize=9)
    fig.suptitle(f"{model}: heads embedded by Jensen-Shannon distance of their attention (MDS){subtitle}", fontsize=11)
    fig.tight_layout()
    return fig
