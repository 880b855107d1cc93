"""The adversaries of rule ``staying_true_adversary`` (:mod:`analysis.explanation.staying_true.adversary`)
compared at "equal JSD" (:func:`equal_jsd_summary`): each model's (mean JSD, mean TVD) points, one per
weight, less those another adversary of the model beats (at least its JSD for less TVD), sorted
by JSD and joined by straight lines, are read at fixed JSD levels common to all models (default:
0.3 and 0.5 nats, on the rising part of the curves, between the lambda = 0 adversary's JSD and the
saturation near ln 2; or, as before, the largest JSD every model's adversaries reach): the TVD the
cheapest adversary pays to move that far from the model's attention, less the model's floor (the
TVD of its lambda = 0 adversary, which only imitates the outputs: what a fresh model pays for
being another model), and whether the curve has adversaries on both sides of the level (else the
reading is an extrapolation).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def cheapest_curve(jsd, tvd) -> tuple[np.ndarray, np.ndarray]:
    """The adversaries no other beats (none reaches at least its JSD for less TVD), sorted by
    JSD: (JSD, TVD) points with both rising, the cost curve of moving the attention."""
    jsd, tvd = np.asarray(jsd, float), np.asarray(tvd, float)
    keep, best = [], np.inf
    for i in np.lexsort((tvd, -jsd)):  # JSD falling, at equal JSD the cheapest first
        if tvd[i] < best:
            keep.append(i)
            best = tvd[i]
    keep = keep[::-1]
    return jsd[keep], tvd[keep]


def tvd_at_jsd(jsd, tvd, level: float) -> float:
    """TVD at JSD ``level`` on the straight lines between the points of :func:`cheapest_curve`
    (an adversary that pays more for no more JSD is left out: the weights' JSD saturates near
    ln 2, and such points would make the curve run back); below the curve's smallest JSD the
    cheapest adversary's TVD (it reaches that level already); nan above its largest JSD."""
    jsd, tvd = cheapest_curve(jsd, tvd)
    if not jsd.size or level > jsd[-1]:
        return float("nan")
    return float(np.interp(level, jsd, tvd))


def brackets(jsd, tvd, level: float) -> bool:
    """Whether :func:`cheapest_curve` has an adversary at or below JSD ``level`` and one at or above
    it (the reading interpolates between two adversaries rather than extrapolates)."""
    jsd, _ = cheapest_curve(jsd, tvd)
    return bool(jsd.size) and bool(jsd[0] <= level <= jsd[-1])


def floor_tvd(d: pd.DataFrame) -> float:
    """The TVD of the model's lambda = 0 adversary (its floor: it only imitates the outputs); NaN
    without one."""
    zero = d[d.weight == 0]
    return float(zero.mean_tvd.iloc[0]) if len(zero) else float("nan")


def common_jsd_level(df: pd.DataFrame) -> float:
    """The largest mean JSD every model's adversaries reach: the smallest of the curves' maxima."""
    return float(df.groupby("model", sort=False).mean_jsd.max().min())


def equal_jsd_summary(df: pd.DataFrame, levels=None) -> pd.DataFrame:
    """Per model and JSD level (``levels``: a list of fixed levels, or None: the one level
    :func:`common_jsd_level`): the TVD its adversaries pay there, read off its (mean JSD, mean TVD)
    curve by :func:`tvd_at_jsd`, its floor (:func:`floor_tvd`) and the TVD above it, whether the
    curve brackets the level (1/0, :func:`brackets`), the ratio of the TVD to the base model's at
    the same level, and how many of its adversaries levelled off."""
    levels = [common_jsd_level(df)] if levels is None else [float(x) for x in np.atleast_1d(levels)]
    rows = []
    for level in levels:
        for name, d in df.groupby("model", sort=False):
            tvd = tvd_at_jsd(d.mean_jsd, d.mean_tvd, level)
            floor = floor_tvd(d) if "weight" in d else float("nan")
            rows.append(
                {
                    "model": name,
                    "jsd_level": level,
                    "tvd_at_jsd_level": tvd,
                    "floor_tvd": floor,
                    "tvd_above_floor": tvd - floor,
                    "bracketed": int(brackets(d.mean_jsd, d.mean_tvd, level)),
                    "max_mean_jsd": float(d.mean_jsd.max()),
                    "adversaries": len(d),
                    "levelled_off": int(d.levelled_off.sum()) if "levelled_off" in d else np.nan,
                    "max_epochs_run": int(d.epochs.max()) if "epochs" in d else np.nan,
                }
            )
    out = pd.DataFrame(rows)
    if "base" in set(out.model):
        base = out[out.model == "base"].set_index("jsd_level").tvd_at_jsd_level
        ref = out.jsd_level.map(base)
        out["tvd_at_jsd_level_vs_base"] = np.where(ref > 0, out.tvd_at_jsd_level / ref, np.nan)
    return out
