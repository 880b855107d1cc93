"""Training seeds as a random effect: a claim's quantity over k training seeds (the model's own run
and its training runs, config ``trainings``), and a one-seed claim widened by a committed seed
reference (config overview.seed_reference). Numbers only: :mod:`analysis.scorecard.checks` turns them
into judgements.

Over k >= 2 seeds each seed's run is judged alone (its value, and its bootstrap replicates where it
has them), and the claim's quantity q (a value; each adjacent difference of an order) is read as the
mean over seeds, m = mean_s q_s, with

    var(m) = s_b^2 / k  +  V_w,

s_b^2 the between-seed variance of the seeds' values (k - 1 degrees of freedom) and V_w the
bootstrap variance of the seed mean, read on the replicates of mean_s q_s,b (replicate b of every
seed side by side, so inputs the seeds share count once). V_w is read off those replicates' own 95%
interval, widened for G resampled clusters as a one-seed verdict's is
(:func:`analysis.scorecard.few_units.bounds_of`), one side at a time: ((m - low) / q)^2 below m and
((high - m) / q)^2 above, q = t(0.975, G - 1) (1.96 for many units); so with no spread between
seeds the interval is the bootstrap's own, skew included, and the t interval
m - t(0.975, df) se_below, m + t(0.975, df) se_above decides where the bootstrap would. The one-sided
p of each direction is the same t's (on the side facing the comparison), so the interval decides
exactly where the two-sided p is <= 5%. A verdict is never read from k of k seeds agreeing.

The df is Welch-Satterthwaite's, s_b^2 / k with k - 1 df and V_w with G - 1, the between-seed term
taken at its one-sided 80% upper confidence bound, s_b^2 (k - 1) / chi2(0.2; k - 1), in the df alone
(the standard error keeps s_b^2): the plain plug-in df is largest exactly where s_b^2 came out small,
so with 3 seeds whose spread dominates it gave 3.7% wrong verdicts per direction for 2.5%; the bound
keeps it at 2.5% while the df still tends to the bootstrap's where the seeds agree (t(k - 1)
throughout would need 4.3 standard errors of 3 seeds however small their spread). Without a
bootstrap it is t(k - 1). tools/measure/seed_calibration.py measures it through the engine.

One seed with a seed reference (between-seed SD s over k_ref seeds, measured once by
``python -m tools.measure.seed_reference``): the seed's own bootstrap variance, read alike, plus s^2
(k_ref - 1 df in the df); a firm bootstrap verdict stays firm only where this interval decides too
(else ``inconclusive (seed)``). With s = 0 it is the bootstrap's own interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from analysis.scorecard.few_units import bounds_of
from analysis.scorecard.run import Run
from analysis.scorecard.values import replicate_values, value

TAIL = 0.025  # each direction of a firm verdict (two-sided 95%)
# the df reads the between-seed variance at its one-sided 80% upper bound (module docstring)
DF_BOUND = 0.8


@dataclass(frozen=True)
class SeedMean:
    """A quantity over seeds: each seed's value (``points``), their ``mean``, its standard error and
    degrees of freedom below and above the mean (``spread``: ((se, df) below, (se, df) above)), the
    seed mean on every bootstrap replicate (``reps``; None without a bootstrap), the clusters drawn
    (``units``), and for one seed widened by the seed reference, that reference's between-seed SD and
    seed count (``reference``)."""

    points: tuple
    mean: float
    spread: tuple = ((np.nan, np.nan), (np.nan, np.nan))
    reps: pd.Series | None = None
    units: float = np.inf
    reference: tuple | None = None
    parts: dict = field(default_factory=dict)  # the variance terms (the terms table)

    def bounds(self, tail: float = TAIL) -> tuple[float, float]:
        """m - t(1 - tail, df) se below, m + t(1 - tail, df) se above (NaN without a standard error)."""
        (se_lo, df_lo), (se_hi, df_hi) = self.spread
        half = lambda se, df: float(stats.t.ppf(1 - tail, df)) * se if se > 0 else 0.0  # noqa: E731
        if not (np.isfinite(se_lo) and np.isfinite(se_hi)):
            return np.nan, np.nan
        return self.mean - half(se_lo, df_lo), self.mean + half(se_hi, df_hi)

    def sided_p(self, gap: float, side: int = 1) -> tuple[float, float]:
        """(p of holds, p of does not hold) of the claim that the mean lies ``gap`` beyond its
        comparison on the claim's side (``gap`` = side x (m - threshold); ``side`` +1: above, -1:
        below): the t test the interval inverts, on the side of the mean that faces the comparison.
        With no spread at all the side of the mean decides (0 and 1)."""
        se, df = self.spread[0] if (gap > 0) == (side > 0) else self.spread[1]
        if not np.isfinite(se) or not np.isfinite(gap):
            return np.nan, np.nan
        if se == 0:
            return (0.0, 1.0) if gap > 0 else (1.0, 0.0)
        t = gap / se
        return float(stats.t.sf(t, df)), float(stats.t.cdf(t, df))

    @property
    def undefined(self) -> float:
        """The share of the replicates on which the seed mean has no value (a seed's is missing)."""
        return float(self.reps.isna().mean()) if self.reps is not None and len(self.reps) else 0.0


def satterthwaite(parts: list[tuple[float, float]]) -> float:
    """Welch-Satterthwaite degrees of freedom of a sum of variance estimates (variance, its df):
    (sum v)^2 / sum(v^2 / df); terms of variance 0 leave it; inf where nothing is left."""
    parts = [(v, d) for v, d in parts if v > 0 and np.isfinite(v)]
    if not parts:
        return np.inf
    denominator = sum(v * v / d for v, d in parts if np.isfinite(d))
    return float(sum(v for v, _ in parts) ** 2 / denominator) if denominator > 0 else np.inf


def seed_df(between: float, df_between: float, within: float, df_within: float) -> float:
    """The interval's df: Welch-Satterthwaite's, the between-seed variance (``df_between`` df) read at
    its one-sided :data:`DF_BOUND` upper confidence bound (module docstring)."""
    upper = between * df_between / float(stats.chi2.ppf(1 - DF_BOUND, df_between)) if between > 0 else 0.0
    return satterthwaite([(upper, df_between), (within, df_within)])


def _within(point: float, reps: list[pd.Series | None], units: float) -> tuple:
    """(the seed mean on every replicate, its bootstrap variance below and above ``point``, their df):
    replicate b of every seed side by side (by position in replicate order), each side's variance
    read off their few-cluster widened 95% interval (module docstring); (None, 0, 0, inf) unless every
    seed has replicates, inf variances where the units allow no interval."""
    if not reps or any(r is None for r in reps):
        return None, 0.0, 0.0, np.inf
    n = min(len(r) for r in reps)
    stacked = np.column_stack([pd.to_numeric(r, errors="coerce").to_numpy(dtype=float)[:n] for r in reps])
    mean = pd.Series(stacked.mean(axis=1), index=pd.RangeIndex(n, name="replicate"))  # NaN where a seed has none
    interval = bounds_of(mean, units, TAIL)
    df = units - 1 if np.isfinite(units) else np.inf
    if not isinstance(interval, tuple):  # too few units for an interval, or no replicate with a value
        return mean, np.inf, np.inf, df
    q = float(stats.t.ppf(1 - TAIL, df))
    low, high = interval
    return mean, (max(point - low, 0.0) / q) ** 2, (max(high - point, 0.0) / q) ** 2, df


def _estimate(points, mean, between, df_between, reps, units, reference=None) -> SeedMean:
    """The SeedMean of ``mean`` with the between-seed variance ``between`` (``df_between`` df) and the
    bootstrap variance of ``reps`` (each seed's replicates) on each side."""
    mean_reps, below, above, df_within = _within(mean, reps, units)
    spread = tuple((float(np.sqrt(between + w)), seed_df(between, df_between, w, df_within)) for w in (below, above))
    parts = {"between": between, "within_below": below, "within_above": above}
    return SeedMean(tuple(points), float(mean), spread, mean_reps, units, reference, parts)


def seed_mean(points: list, reps: list[pd.Series | None], units: float = np.inf) -> SeedMean:
    """The mean over k seeds of one quantity (``points``: each seed's value; ``reps``: each seed's
    bootstrap replicates, None where it has none), its standard error sqrt(s_b^2 / k + V_w) on each
    side and its df (module docstring). Fewer than 2 seeds: no standard error (NaN)."""
    x = np.asarray(points, dtype=float)
    k = len(x)
    if k < 2:
        return SeedMean(tuple(points), float(x.mean()) if k else np.nan)
    return _estimate(points, float(x.mean()), float(x.var(ddof=1)) / k, k - 1, reps, units)


def widened(point: float, reps: pd.Series, units: float, sd: float, k_ref: int) -> SeedMean:
    """One seed's value with its bootstrap variance (read as :func:`seed_mean` reads it) plus the seed
    reference's between-seed variance ``sd``^2 (``k_ref`` - 1 df): what a new seed's value could be,
    read as a t interval with the df of :func:`seed_df`."""
    return _estimate((point,), point, float(sd) ** 2, k_ref - 1, [reps], units, (float(sd), int(k_ref)))


def seed_runs(run: Run, specs: list[dict]) -> list[Run]:
    """One run per training seed of the tables ``specs`` read: the model's own run first, then each
    training run (``run.trainings``) that made one of them, its tables over the model's own (a table
    no training changes, e.g. a baseline's, is read from the model's run). One run: a single seed."""
    stems = {spec["table"] for spec in specs}
    runs = [run]
    for training in run.trainings:
        if stems & set(training.tables):
            boots = {s: b for s, b in run.boots.items() if s not in training.tables} | dict(training.boots)
            runs.append(Run({**run.tables, **training.tables}, boots))
    return runs


def per_seed(spec: dict, runs: list[Run], extra_where) -> tuple[list, list]:
    """(each seed's value of ``spec``, each seed's replicate values or None)."""
    points = [value(spec, r.tables, extra_where) for r in runs]
    return points, [replicate_values(spec, r.boots, extra_where) for r in runs]


def numeric(points: list) -> bool:
    """Whether every seed's value is a number (a categorical value, or a tie, has no mean)."""
    return all(isinstance(p, (int, float, np.integer, np.floating)) and not isinstance(p, bool) for p in points)


def modal(points: list):
    """The most common of the seeds' values (the first seed's where several are as common)."""
    counts = pd.Series([str(p) for p in points]).value_counts(sort=False)
    return points[[str(p) for p in points].index(counts.idxmax())]


def seed_differences(seeds: list, margin: float) -> list:
    """Each adjacent difference of an order over seeds, minus the margin: (each seed's point, each
    seed's replicates by replicate id or None) from ``seeds``, per value (points, replicates)."""
    num = lambda r: pd.to_numeric(r, errors="coerce")  # noqa: E731
    return [
        ([a - b - margin for a, b in zip(pa, pb)], [None if x is None or y is None else num(x) - num(y) - margin for x, y in zip(ra, rb)])
        for (pa, ra), (pb, rb) in zip(seeds, seeds[1:])
    ]  # fmt: skip
