"""Replicate tables of the sec. 3 surface tables (``<stem>.boot.csv``, for the scorecard's intervals):
the same per-head means and layer means on each bootstrap resample of the Wikipedia segments.

The article is the independent unit: a resample draws as many Wikipedia articles as the
segments come from, with replacement, each with all its segments
(``analysis.shared.bootstrap.cluster_weights``: how often each segment's article is drawn; the
articles are the shards' metas' ``articles``, see :func:`segment_clusters`), so its
sums are weighted sums of the segments' own statistics (``unit.<analysis>.<key>`` in the shards'
sums, see ``analysis.clark.surface.sums``): one matrix product per statistic, ``weights @ units``,
then the same ratios as ``attention_stats.per_head_table`` and the same unweighted mean over a
layer's heads as ``attention_stats.by_layer``. With every weight 1 this is the point table.

Only the metric columns (no counts) are written, with the keys ``layer`` (and ``head``) and
``replicate``, at the point tables' six significant digits.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from analysis.shared.attention_stats import RATIOS
from analysis.shared.bootstrap import cluster_weights, n_clusters, unit_weights, with_resampled

REPLICATE = "replicate"


def segment_clusters(metas: list[dict], js: bool = False) -> list[str]:
    """Every segment's article (the cluster of the resamples), the shards' in order, from the
    shards' metas (``articles``); with ``js``, those of the segments in the head distances (each
    shard's first ``js_segments``)."""
    if any("articles" not in m for m in metas):
        raise ValueError(
            "shard sums without the segments' articles (written before they were kept): rerun surface_sums"
        )
    return [a for m in metas for a in (m["articles"][: m["js_segments"]] if js else m["articles"])]


def unit_stats(parts: list[dict], prefix: str) -> dict[str, np.ndarray]:
    """Every segment's statistics of ``prefix`` (an analysis), the shards' in order: key -> (N, L, H)
    or (N,) for those that are the same for every head."""
    keys = [k for part in parts for k in part if k.startswith(f"unit.{prefix}.")]
    if not keys:
        raise ValueError(
            f"no per-segment statistics for {prefix!r} in the shards' sums (written before they were kept): "
            "rerun rule surface_sums"
        )
    keys = list(dict.fromkeys(keys))
    out = {}
    for key in keys:
        have = [part[key] for part in parts if key in part]  # a shard without examples has none
        out[key[len(f"unit.{prefix}.") :]] = np.concatenate(have, axis=0)
    return out


def replicate_means(units: dict[str, np.ndarray], weights: np.ndarray) -> dict[str, np.ndarray]:
    """Per-head means of every metric on each resample: metric -> (B, L, H). ``weights``: (B, N),
    how often each of the N segments is drawn (all ones: the point means)."""
    w = np.asarray(weights, dtype=np.float64)
    shape = next(u.shape[1:] for u in units.values() if u.ndim == 3)
    sums = {}
    for k, u in units.items():
        if len(u) != w.shape[1]:
            raise ValueError(f"{k}: {len(u)} segments, but weights for {w.shape[1]}")
        s = w @ u.reshape(len(u), -1)  # (B, L*H) or (B, 1)
        sums[k] = s.reshape(len(w), *shape) if u.ndim == 3 else s.reshape(len(w), 1, 1)
    means = {}
    for k, s in sums.items():
        if k in RATIOS:
            denom = np.broadcast_to(sums[RATIOS[k]], (len(w), *shape))
            with np.errstate(divide="ignore", invalid="ignore"):
                means[k] = np.where(denom > 0, np.broadcast_to(s, denom.shape) / denom, np.nan)
    return means


def per_head_frame(means: dict[str, np.ndarray], metrics: list[str]) -> pd.DataFrame:
    """layer, head (1-indexed), the metrics, replicate: one row per resample and head."""
    B, L, H = means[metrics[0]].shape
    rep, layer, head = np.meshgrid(np.arange(B), np.arange(1, L + 1), np.arange(1, H + 1), indexing="ij")
    cols = {"layer": layer.ravel(), "head": head.ravel()}
    cols.update({m: means[m].ravel() for m in metrics})
    cols[REPLICATE] = rep.ravel()
    return pd.DataFrame(cols)


def by_layer_frame(means: dict[str, np.ndarray], metrics: list[str]) -> pd.DataFrame:
    """layer, the metrics' mean over the layer's heads (NaN heads left out, as ``by_layer``), replicate."""
    B, L, _ = means[metrics[0]].shape
    rep, layer = np.meshgrid(np.arange(B), np.arange(1, L + 1), indexing="ij")
    cols = {"layer": layer.ravel()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a layer whose heads are all NaN: NaN
        cols.update({m: np.nanmean(means[m], axis=2).ravel() for m in metrics})
    cols[REPLICATE] = rep.ravel()
    return pd.DataFrame(cols)


def weighted_tables(units: dict[str, np.ndarray], weights: np.ndarray, *, per_head=None, layers=None) -> dict:
    """The tables of the segments' statistics ``units`` (:func:`unit_stats`) under each row of
    ``weights`` (B, N): ``'heads'`` (per head, the metrics ``per_head``) and/or ``'layers'`` (layer
    means of the metrics ``layers``), one replicate per row."""
    means = replicate_means(units, weights)
    out = {}
    if per_head:
        out["heads"] = per_head_frame(means, list(per_head))
    if layers:
        out["layers"] = by_layer_frame(means, list(layers))
    return out


def replicate_tables(
    parts: list[dict], prefix: str, resamples: int, seed: int, *, per_head=None, layers=None, clusters=None
) -> dict[str, pd.DataFrame]:
    """The replicate tables of analysis ``prefix`` from the shards' sums: ``'heads'`` (per head, the
    metrics ``per_head``) and/or ``'layers'`` (layer means of the metrics ``layers``), on ``resamples``
    resamples drawn with ``seed``: of the ``clusters`` (every segment's article,
    :func:`segment_clusters`), else of the segments."""
    units = unit_stats(parts, prefix)
    n_units = len(next(iter(units.values())))
    if clusters is None:
        weights = unit_weights(n_units, int(resamples), int(seed))
    elif len(clusters) != n_units:
        raise ValueError(f"{prefix}: {n_units} segments, but clusters for {len(clusters)}")
    else:
        weights = cluster_weights(clusters, int(resamples), int(seed))
    out = weighted_tables(units, weights, per_head=per_head, layers=layers)
    if clusters is not None:  # the clusters each resample drew: the scorecard's few-cluster correction
        out = {k: with_resampled(v, n_clusters(clusters)) for k, v in out.items()}
    return out
