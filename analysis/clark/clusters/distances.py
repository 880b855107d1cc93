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

Rule head_clusters sums the distances of the shards (``head_distances``: ``surface_sums`` computed
each shard's), tidies them per head pair and per layer pair, and resamples the segments for the layer
pairs' replicate table (``layer_replicates``). The heads' MDS points and behaviour labels:
:mod:`analysis.clark.clusters.points`; Fig. 6: :mod:`analysis.clark.clusters.plots`.

torch is imported by the functions that compute distances (``pairwise_js``, in ``surface_sums``)
only: the rules that read the summed distances and the shards' other sums (``head_clusters``,
``entropy``, ...) import this module and never load it (issue 39: most of those jobs' start-up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from analysis.shared.bootstrap import cluster_weights, n_clusters, unit_weights, with_resampled

if TYPE_CHECKING:
    import torch


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

    def __init__(self, dtype=None):
        import torch

        self.dtype = dtype or torch.float32
        self._flat: tuple[torch.Tensor, torch.Tensor] | None = None

    def buffers(self, shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
        """Two tensors of ``shape`` viewing the workspace (grown when a segment needs more)."""
        import torch

        size = int(np.prod(shape))
        if self._flat is None or self._flat[0].numel() < size:
            self._flat = (torch.empty(size, dtype=self.dtype), torch.empty(size, dtype=self.dtype))
        return self._flat[0][:size].view(shape), self._flat[1][:size].view(shape)


def pairwise_js(
    attn, eps: float = 0.0, block_elems: int = 2**22, dtype=None, work: JSWorkspace | None = None
) -> np.ndarray:
    """Sum over rows of the JS divergence between every pair of heads.

    ``attn``: (K, n, n) attention of K heads on one segment, rows summing to 1.
    Returns a symmetric (K, K) float64 array with a zero diagonal (nats).

    Uses JS(p, q) = (S(p) + S(q)) / 2 - S(m) with S(p) = sum p log p; every S(m) of the
    upper triangle is computed at once for a block of rows of heads (two buffers of
    ``block_elems`` floats, from ``work`` when a pass over many segments gives one);
    0 log 0 = 0 (values are clamped at 1e-30 before the log). ``dtype``: the element-wise
    arithmetic's, float32 when None.
    """
    import torch

    dtype = dtype or torch.float32
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
    one table per resample stacked with ``replicate`` (no pairs column). Every layer pair has as
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


def head_distances(parts: list[dict], metas: list[dict]) -> tuple[np.ndarray, dict]:
    """The head distances (K, K) summed over the shards' sums (``surface_sums``: ``js`` of each
    shard's first segments, up to ``clark_clusters.n_segments`` in all) and what they were summed
    over: segments, tokens, the smoothing ``eps``, the segments available and skipped."""
    dist = sum(part["js"] for part in parts)
    counts = {
        "segments": sum(m["js_segments"] for m in metas),
        "tokens": sum(m["js_tokens"] for m in metas),
        "smoothing_eps": metas[0]["smoothing_eps"],
    }
    if counts["segments"] == 0:
        raise ValueError("no segments to compute head distances on (clark_clusters.n_segments)")
    counts["segments_available"] = sum(m["examples"] for m in metas)
    counts["segments_skipped"] = counts["segments_available"] - counts["segments"]
    return dist, counts


def layer_distances(dist: np.ndarray, n_layers: int, n_heads: int) -> pd.DataFrame:
    """``layer_table`` of the layer pairs' sums of the head distances ``dist`` (K, K)."""
    return layer_table(layer_blocks(dist, n_layers, n_heads), n_heads)


def replicate_blocks(units: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(B, L, L): each resample's layer blocks, the segments' own blocks ``units`` (S, L, L)
    summed with the resample's ``weights`` (B, S: how often it draws each segment), on the scale
    of S segments: a resample of whole articles draws some other number of segments, so its sum
    is divided by its own total weight and multiplied by S (a no-op when the weights sum to S)."""
    L = units.shape[-1]
    w = weights.astype(np.float64)
    total = w.sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(total > 0, len(units) / total, np.nan)
    return (w @ units.reshape(len(units), -1) * scale[:, None]).reshape(len(w), L, L)


def layer_replicates(parts: list[dict], n_heads: int, resamples: int, seed: int, clusters=None) -> pd.DataFrame:
    """The replicate table of ``layer_distances`` (scorecard intervals): the segments of the distances
    (each shard's ``unit.js_layers``) resampled ``resamples`` times (seeded), stacked with ``replicate``:
    whole ``clusters`` (every such segment's article, ``surface.boot.segment_clusters(metas, js=True)``)
    are drawn, else single segments."""
    if any("unit.js_layers" not in part for part in parts):
        raise ValueError(
            "shard sums without the segments' own head distances (written before they were kept): rerun surface_sums"
        )
    units = np.concatenate([part["unit.js_layers"] for part in parts])
    if clusters is None:
        weights = unit_weights(len(units), int(resamples), int(seed))
    elif len(clusters) != len(units):
        raise ValueError(f"head distances of {len(units)} segments, but clusters for {len(clusters)}")
    else:
        weights = cluster_weights(clusters, int(resamples), int(seed))
        return with_resampled(layer_table(replicate_blocks(units, weights), n_heads), n_clusters(clusters))
    return layer_table(replicate_blocks(units, weights), n_heads)
