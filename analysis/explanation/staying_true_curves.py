"""The adversaries of rule ``staying_true_adversary`` (:mod:`analysis.explanation.staying_true_adversary`)
compared at "equal JSD" (:func:`equal_jsd_summary`): each model's (mean JSD, mean TVD) points, one per
weight, less those another adversary of the model beats (at least its JSD for less TVD), sorted
by JSD and joined by straight lines, are read at one JSD level common to all models (default:
the largest JSD every model's adversaries reach, the smallest of the curves' maxima): the TVD
the cheapest adversary pays to move that far from the model's attention.
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


def common_jsd_level(df: pd.DataFrame) -> float:
    """The largest mean JSD every model's adversaries reach: the smallest of the curves' maxima."""
    return float(df.groupby("model", sort=False).mean_jsd.max().min())


def equal_jsd_summary(df: pd.DataFrame, level: float | None = None) -> pd.DataFrame:
    """Per model: the TVD its adversaries pay at one common JSD ``level`` (default
    :func:`common_jsd_level`), read off its (mean JSD, mean TVD) curve by :func:`tvd_at_jsd`,
    its ratio to the base model's, and how many of its adversaries levelled off."""
    level = common_jsd_level(df) if level is None else float(level)
    rows = []
    for name, d in df.groupby("model", sort=False):
        rows.append(
            {
                "model": name,
                "jsd_level": level,
                "tvd_at_jsd_level": tvd_at_jsd(d.mean_jsd, d.mean_tvd, level),
                "max_mean_jsd": float(d.mean_jsd.max()),
                "adversaries": len(d),
                "levelled_off": int(d.levelled_off.sum()) if "levelled_off" in d else np.nan,
                "max_epochs_run": int(d.epochs.max()) if "epochs" in d else np.nan,
            }
        )
    out = pd.DataFrame(rows)
    if "base" in set(out.model):
        base = float(out.loc[out.model == "base", "tvd_at_jsd_level"].iloc[0])
        out["tvd_at_jsd_level_vs_base"] = out.tvd_at_jsd_level / base if base > 0 else np.nan
    return out
