"""Replicate tables (``<stem>.boot.csv``) of the attention-as-explanation rules, for the claim
scorecard's intervals (:mod:`analysis.shared.bootstrap`).

The resampled units are the explained instances (dev sentences, column ``id``): every resample
draws as many instances as there are, with replacement, and every encoder and every erasure order
of the rule sees the same draws (a paired resample: the encoders explain the same sentences). A
resample's summary is the point summary with each instance's rows counted as often as it was
drawn, computed for all resamples at once from a (resamples, instances) weight matrix: shares
are weighted means, medians weighted medians (NaN left out, as pandas' median does), so all
weights 1 give the point summary exactly.

What the tables hold: ``erasure.summary.boot`` the columns of ``erasure.summary`` the claims read,
per encoder and order; ``permutation.boot`` / ``adversarial.boot`` / ``rank_agreement.boot`` one
row per encoder (and tolerance) whose columns are the *median over instances* of the per-instance
column of the same name (the claims' ``agg: median`` of one row is that median);
``staying_true_permutation.summary.boot`` / ``staying_true_single_token.summary.boot`` one row per
Tutek & Snajder model with the summary columns their claims read (the accuracy drop under
permutation: a mean over instances; the median lone-token spread); ``staying_true_adversary.summary.boot``
per model the TVD at equal JSD, read off the curve of each weight's mean JSD and TVD over the
resampled instances (the adversaries themselves are not retrained).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.explanation.erasure import vs_attention_rows
from analysis.explanation.staying_true.curves import equal_jsd_summary
from analysis.shared.bootstrap import unit_weights, with_resampled

REPLICATE = "replicate"
# erasure.summary: what the claims read (single-weight columns repeat beside every order)
ERASURE_SINGLE = {"flip_rate_top": "flip_top", "share_jsd_top_larger": "jsd_top_larger"}
ERASURE_SET_MEDIANS = {"median_fraction_removed": "fraction_removed"}
ERASURE_PAIRED = ("vs_attention_sooner_share", "vs_attention_later_share")
# the per-instance tables: columns whose median over instances the claims read, and the keys
PERMUTATION = (["encoder"], ["median_output_change"])
ADVERSARIAL = (["encoder", "tolerance"], ["jsd"])
RANK_AGREEMENT = (["encoder"], ["tau_gradient", "tau_leave_one_out"])
# Tutek & Snajder: the summary columns their claims read (staying_true.attention_tests' summaries); the
# lone-token spread is the median of the per-instance column single_std
STAYING_TRUE_DROP = "accuracy_drop_under_permutation"
STAYING_TRUE_SINGLE = {"median_single_std": "single_std"}


def instance_weights(resamples: int, seed: int, *tables: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(units, weights): the sorted instance ids of ``tables`` (column ``id``, every encoder) and
    their (resamples, units) multiplicities per resample (:func:`unit_weights`)."""
    units = np.unique(np.concatenate([t["id"].to_numpy() for t in tables]))
    return units, unit_weights(len(units), resamples, seed)


def row_weights(ids, units: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(resamples, rows): each row counted as often as its instance was drawn."""
    return weights[:, np.searchsorted(units, np.asarray(ids))]


def weighted_mean(x, w: np.ndarray) -> np.ndarray:
    """Per resample (row of ``w``), the mean of ``x`` with each value counted ``w`` times (NaN
    left out; NaN where nothing is left)."""
    x = np.asarray(x, dtype=float)
    ok = ~np.isnan(x)
    total = w[:, ok].sum(1)
    sums = w[:, ok] @ x[ok]
    return np.divide(sums, total, out=np.full(len(w), np.nan), where=total > 0)


def weighted_median(x, w: np.ndarray) -> np.ndarray:
    """Per resample (row of ``w``), the median of ``x`` with each value repeated ``w`` times:
    the middle value, or the mean of the two middle ones (as ``np.median`` of the repeated values;
    NaN left out; NaN where nothing is left)."""
    x = np.asarray(x, dtype=float)
    ok = ~np.isnan(x)
    x, w = x[ok], w[:, ok]
    if len(x) == 0:
        return np.full(len(w), np.nan)
    order = np.argsort(x, kind="stable")
    xs, cum = x[order], np.cumsum(w[:, order], axis=1)
    total = cum[:, -1]

    def at(pos):  # the value at 0-based position ``pos`` of the sorted, repeated values
        return xs[np.minimum((cum <= pos[:, None]).sum(1), len(xs) - 1)]

    med = (at((total - 1) // 2) + at(total // 2)) / 2
    return np.where(total > 0, med, np.nan)


def _stack(parts: list[tuple[dict, dict[str, np.ndarray]]], resamples: int) -> pd.DataFrame:
    """One row per resample and group: ``parts`` = (keys, column -> (resamples,) values) per
    group; rows replicate-major, groups in the order given."""
    frames = [
        pd.DataFrame({**{k: [v] * resamples for k, v in keys.items()}, **cols, REPLICATE: np.arange(resamples)})
        for keys, cols in parts
    ]
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(REPLICATE, kind="stable", ignore_index=True)


def median_replicates(df: pd.DataFrame, keys: list[str], columns: list[str], units, weights) -> pd.DataFrame:
    """Per group of ``keys`` (in table order) and replicate: the weighted median over the group's
    instances of each of ``columns``."""
    parts = []
    for key, g in df.groupby(keys, sort=False):
        w = row_weights(g["id"], units, weights)
        key = key if isinstance(key, tuple) else (key,)
        parts.append((dict(zip(keys, key)), {c: weighted_median(g[c], w) for c in columns}))
    return _stack(parts, len(weights))


def median_boot(df: pd.DataFrame, spec: tuple[list[str], list[str]], resamples: int, seed: int) -> pd.DataFrame:
    """The boot table of a rule whose claims read medians over instances (``spec``: ``PERMUTATION``,
    ``ADVERSARIAL``, ``RANK_AGREEMENT``): :func:`median_replicates` on ``resamples`` seeded resamples
    of ``df``'s instances, with the number of instances each drew (``with_resampled``)."""
    units, weights = instance_weights(resamples, seed, df)
    return with_resampled(median_replicates(df, *spec, units, weights), len(units))


def _single_columns(single: pd.DataFrame, units, weights) -> dict[str, dict[str, np.ndarray]]:
    """Per encoder, the single-weight shares of the claims (as :func:`erasure.single_summary`)."""
    single = single.assign(jsd_top_larger=single["jsd_difference"] > 0)
    out = {}
    for enc, g in single.groupby("encoder", sort=False):
        w = row_weights(g["id"], units, weights)
        out[enc] = {col: weighted_mean(g[src].astype(float), w) for col, src in ERASURE_SINGLE.items()}
    return out


def erasure_replicates(single: pd.DataFrame, sets: pd.DataFrame, units, weights) -> pd.DataFrame:
    """``erasure.summary``'s claim columns per encoder and order on every resample: the
    single-weight shares (repeated beside each order), the median fraction removed over the set
    rows (instances x random draws) and the shares flipping sooner / later than attention order."""
    single_cols = _single_columns(single, units, weights)
    paired = {key: g for key, g in vs_attention_rows(sets).groupby(["encoder", "order"], sort=False)}
    parts = []
    for (enc, order), g in sets.groupby(["encoder", "order"], sort=False):
        w = row_weights(g["id"], units, weights)
        cols = dict(single_cols[enc])
        cols.update({col: weighted_median(g[src], w) for col, src in ERASURE_SET_MEDIANS.items()})
        p = paired.get((enc, order))
        pw = row_weights(p["id"], units, weights) if p is not None else None
        for col in ERASURE_PAIRED:
            src = col.removeprefix("vs_attention_").removesuffix("_share")
            cols[col] = weighted_mean(p[src].astype(float), pw) if p is not None else np.full(len(weights), np.nan)
        parts.append(({"encoder": enc, "order": order}, cols))
    return _stack(parts, len(weights))


def staying_true_permutation_replicates(df: pd.DataFrame, units, weights) -> pd.DataFrame:
    """Per model and replicate: the accuracy drop under permutation, the weighted mean over
    instances of (correct - accuracy under permutation), as :func:`permutation_summary`'s difference
    of the two means."""
    parts = []
    for model, g in df.groupby("model", sort=False):
        w = row_weights(g["id"], units, weights)
        drop = g["correct"].astype(float) - g["accuracy_under_permutation"].astype(float)
        parts.append(({"model": model}, {STAYING_TRUE_DROP: weighted_mean(drop, w)}))
    return _stack(parts, len(weights))


def staying_true_single_token_replicates(df: pd.DataFrame, units, weights) -> pd.DataFrame:
    """Per model and replicate: the median over instances of the lone-token spread."""
    out = median_replicates(df, ["model"], list(STAYING_TRUE_SINGLE.values()), units, weights)
    return out.rename(columns={v: k for k, v in STAYING_TRUE_SINGLE.items()})


def staying_true_adversary_replicates(instances: pd.DataFrame, levels, units, weights) -> pd.DataFrame:
    """Per model, JSD level and replicate: :func:`equal_jsd_summary`'s TVD at equal JSD and above
    the model's floor (``levels``: fixed levels; None: the largest mean JSD every model reaches, in
    each resample) on each (model, weight)'s weighted mean JSD and TVD over the instances
    (``instances``: model, weight, id, jsd, tvd)."""
    keys, jsd, tvd = [], [], []
    for key, g in instances.groupby(["model", "weight"], sort=False):
        w = row_weights(g["id"], units, weights)
        keys.append(key)
        jsd.append(weighted_mean(g["jsd"], w))
        tvd.append(weighted_mean(g["tvd"], w))
    models, adv_weights = [k[0] for k in keys], [k[1] for k in keys]
    jsd, tvd = np.array(jsd), np.array(tvd)  # (groups, resamples)
    frames = []
    for r in range(len(weights)):
        curves = pd.DataFrame({"model": models, "weight": adv_weights, "mean_jsd": jsd[:, r], "mean_tvd": tvd[:, r]})
        summary = equal_jsd_summary(curves, levels)[["model", "jsd_level", "tvd_at_jsd_level", "tvd_above_floor"]]
        frames.append(summary.assign(**{REPLICATE: r}))
    return pd.concat(frames, ignore_index=True)
