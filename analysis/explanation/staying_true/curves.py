"""The adversaries of rule ``staying_true_adversary`` (:mod:`analysis.explanation.staying_true.adversary`)
compared at "equal JSD" (:func:`equal_jsd_summary`): each model's (mean JSD, mean TVD) points, one per
weight, less those another adversary of the model beats (at least its JSD for less TVD), sorted
by JSD and joined by straight lines, are read at fixed JSD levels (default: 0.3 and 0.5 nats, on
the rising part of the curves, between the lambda = 0 adversary's JSD and the saturation near
ln 2; or, as before, the largest JSD every model's adversaries reach): the TVD the cheapest
adversary pays to move that far from the model's attention, and, as a robustness column, that TVD
less the model's floor (the TVD of its lambda = 0 adversary, which only imitates the outputs).

A straight line read between two adversaries far apart says little about the curve between them,
so a reading is *resolved* only where the adversaries that bracket the level (the nearest at or
below it and the nearest at or above it) are each within ``bracket_jsd`` of it and both converged
(:func:`bracket_columns`). :func:`next_weight` is the bisection on lambda that
looks for such adversaries (:mod:`analysis.explanation.staying_true.adversary_runs`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def cheapest_indices(jsd, tvd) -> np.ndarray:
    """Positions of the adversaries no other beats (none reaches at least its JSD for less TVD),
    sorted by JSD: along them JSD and TVD both rise."""
    jsd, tvd = np.asarray(jsd, float), np.asarray(tvd, float)
    keep, best = [], np.inf
    for i in np.lexsort((tvd, -jsd)):  # JSD falling, at equal JSD the cheapest first
        if tvd[i] < best:
            keep.append(i)
            best = tvd[i]
    return np.array(keep[::-1], dtype=int)


def cheapest_curve(jsd, tvd) -> tuple[np.ndarray, np.ndarray]:
    """The (JSD, TVD) points of :func:`cheapest_indices`: the cost curve of moving the attention."""
    keep = cheapest_indices(jsd, tvd)
    return np.asarray(jsd, float)[keep], np.asarray(tvd, float)[keep]


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


def bracketing(jsd, level: float) -> tuple[int | None, int | None]:
    """Positions (in ``jsd``) of the adversaries nearest JSD ``level`` on each side: the one of the
    largest JSD at or below it and the one of the smallest at or above it (the same one where an
    adversary sits on the level); None on a side without one. Every adversary counts, also one the
    cheapest curve leaves out: near the level, the TVD of adversaries a few hundredths of a nat apart
    differs by noise, and the curve the reading interpolates is known there from either."""
    jsd = np.asarray(jsd, float)
    below, above = np.flatnonzero(jsd <= level), np.flatnonzero(jsd >= level)
    lo = int(below[np.argmax(jsd[below])]) if below.size else None
    hi = int(above[np.argmin(jsd[above])]) if above.size else None
    return lo, hi


def weight_interval(d: pd.DataFrame, level: float) -> tuple[float, float] | None:
    """The trade-off weights between which one model's adversaries ``d`` (columns weight, mean_jsd)
    cross JSD ``level``: the smallest weight whose adversary reaches it, and the largest smaller one
    whose adversary stays below it (the JSD need not rise with the weight everywhere: an adversary
    still far from converged can reach less than a smaller weight's); None without such a pair."""
    jsd, weights = d.mean_jsd.to_numpy(float), d.weight.to_numpy(float)
    reach = weights[jsd >= level]
    if not reach.size:
        return None
    hi = reach.min()
    below = weights[(jsd < level) & (weights < hi)]
    return (float(below.max()), float(hi)) if below.size else None


def next_weight(d: pd.DataFrame, level: float, max_gap: float) -> float | None:
    """One step of the bisection on the trade-off weight for one model's adversaries ``d``
    (columns weight, mean_jsd): while an adversary bracketing ``level`` (:func:`bracketing`) is
    more than ``max_gap`` from it, the midpoint of :func:`weight_interval`; None when both are within it, when no pair of weights crosses the level (it lies outside the
    curve), or when the midpoint was trained already."""
    lo, hi = bracketing(d.mean_jsd, level)
    jsd = d.mean_jsd.to_numpy(float)
    if lo is not None and hi is not None and max(level - jsd[lo], jsd[hi] - level) <= max_gap:
        return None
    interval = weight_interval(d, level)
    if interval is None:
        return None
    mid = sum(interval) / 2
    return None if np.isclose(d.weight.to_numpy(float), mid, rtol=1e-9, atol=0).any() else float(mid)


def bracket_columns(d: pd.DataFrame, level: float, max_gap: float) -> dict:
    """How well one model's adversaries ``d`` resolve the reading at ``level``: the JSD and weight
    of the two bracketing adversaries (:func:`bracketing`), ``bracket_gap`` (the farther one's
    distance from the level; NaN unless bracketed), ``bracket_converged`` (1 when both converged,
    from column ``converged``; NaN without it) and ``resolved`` (1 when bracketed, the gap is at
    most ``max_gap`` and both converged)."""
    lo, hi = bracketing(d.mean_jsd, level)
    jsd, weights = d.mean_jsd.to_numpy(float), d.weight.to_numpy(float)
    side = {"below": lo, "above": hi}
    out = {f"jsd_{k}": (jsd[i] if i is not None else np.nan) for k, i in side.items()}
    out |= {f"weight_{k}": (weights[i] if i is not None else np.nan) for k, i in side.items()}
    out["bracket_gap"] = float(np.max([level - out["jsd_below"], out["jsd_above"] - level]))  # NaN unless both
    converged = np.nan
    if "converged" in d and lo is not None and hi is not None:
        converged = int(bool(d.converged.iloc[lo]) and bool(d.converged.iloc[hi]))
    out["bracket_converged"] = converged
    out["resolved"] = int(bool(out["bracket_gap"] <= max_gap) and converged == 1)
    return out


def floor_tvd(d: pd.DataFrame) -> float:
    """The TVD of the model's lambda = 0 adversary (its floor: it only imitates the outputs); NaN
    without one."""
    zero = d[d.weight == 0]
    return float(zero.mean_tvd.iloc[0]) if len(zero) else float("nan")


def common_jsd_level(df: pd.DataFrame) -> float:
    """The largest mean JSD every model's adversaries reach: the smallest of the curves' maxima."""
    return float(df.groupby("model", sort=False).mean_jsd.max().min())


def equal_jsd_summary(df: pd.DataFrame, levels=None, max_gap: float = np.inf) -> pd.DataFrame:
    """Per model and JSD level (``levels``: a list of fixed levels, or None: the one level
    :func:`common_jsd_level`): the TVD its adversaries pay there, read off its (mean JSD, mean TVD)
    curve by :func:`tvd_at_jsd`, its floor (:func:`floor_tvd`) and the TVD above it, whether the
    curve brackets the level (1/0, :func:`brackets`) and how closely (:func:`bracket_columns`, with
    ``max_gap`` as ``bracket_jsd``), the ratio of the TVD to the base model's at the same level, and
    how many of its adversaries levelled off."""
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
                    **(bracket_columns(d, level, max_gap) if "weight" in d else {}),
                    "bracket_jsd": max_gap,
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
