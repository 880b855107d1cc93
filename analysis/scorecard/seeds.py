"""Training seeds as a random effect: a claim's quantity over k training seeds (the model's own run
and its training runs, config ``trainings``), and a one-seed claim widened by a committed seed
reference (config overview.seed_reference). Numbers only: :mod:`analysis.scorecard.checks` turns them
into judgements.

Over k >= 2 seeds each seed's run is judged alone (its value, and its bootstrap replicates where it
has them), and the claim's quantity q (a value; each adjacent difference of an order) is read as the
mean over seeds, m = mean_s q_s, with

    var(m) = s_b^2 / k  +  V_w,

s_b^2 the between-seed variance of the seeds' values (k - 1 degrees of freedom) and V_w the
bootstrap variance of the seed mean: the variance over the replicates of mean_s q_s,b (replicate b
of every seed side by side, so inputs shared by the seeds count once), times G/(G - 1) for G
resampled clusters (G - 1 degrees of freedom; none without a bootstrap). The 95% interval is
m +- t(0.975, df) sqrt(var(m)); the one-sided p of each direction is the same t's, so the interval
decides exactly where the two-sided p is <= 5%. A verdict is never read from k of k seeds agreeing.

The df is Welch-Satterthwaite's, with the between-seed term taken at its one-sided 80% upper
confidence bound, s_b^2 (k - 1) / chi2(0.2; k - 1), in the df alone (the standard error keeps
s_b^2): the plain plug-in df is largest exactly where s_b^2 came out small, so with 3 seeds whose
spread dominates it gave 3.7% wrong verdicts per direction for 2.5%; the bound keeps it at 2.5%
while the df still tends to the bootstrap's where the seeds agree (t(k - 1) throughout would need
4.3 standard errors of 3 seeds however small their spread). Without a bootstrap it is t(k - 1).
tools/measure/seed_calibration.py measures it through the engine.

One seed with a seed reference (between-seed SD s over k_ref seeds, measured once by
``python -m tools.measure.seed_reference``): the seed's own bootstrap variance plus s^2 (k_ref - 1
degrees of freedom), the same t; a firm bootstrap verdict stays firm only where this interval
decides too (else ``inconclusive (seed)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from analysis.scorecard.run import Run
from analysis.scorecard.values import replicate_values, value

TAIL = 0.025  # each direction of a firm verdict (two-sided 95%)
# the df reads the between-seed variance at its one-sided 80% upper bound (module docstring)
DF_BOUND = 0.8


@dataclass(frozen=True)
class SeedMean:
    """A quantity over seeds: each seed's value (``points``), their ``mean``, its standard error
    (``se``) and degrees of freedom (``df``), the seed mean on every bootstrap replicate (``reps``;
    None without a bootstrap), the clusters drawn (``units``), and for a one-seed quantity widened by
    the seed reference, that reference's between-seed SD and seed count (``reference``)."""

    points: tuple
    mean: float
    se: float
    df: float
    reps: pd.Series | None = None
    units: float = np.inf
    reference: tuple | None = None
    parts: dict = field(default_factory=dict)  # the variance terms: between, within (for the terms table)

    def bounds(self, tail: float = TAIL) -> tuple[float, float]:
        """The interval m +- t(1 - tail, df) se (NaN where there is no standard error)."""
        if not np.isfinite(self.se):
            return np.nan, np.nan
        half = float(stats.t.ppf(1 - tail, self.df)) * self.se if self.se > 0 else 0.0
        return self.mean - half, self.mean + half

    def sided_p(self, gap: float) -> tuple[float, float]:
        """(p of holds, p of does not hold) of the claim that the mean lies ``gap`` above its
        comparison on the claim's side (``gap`` = side x (m - threshold)): the t test the interval
        inverts. With no spread at all the side of the mean decides (0 and 1)."""
        if not np.isfinite(self.se) or not np.isfinite(gap):
            return np.nan, np.nan
        if self.se == 0:
            return (0.0, 1.0) if gap > 0 else (1.0, 0.0)
        t = gap / self.se
        return float(stats.t.sf(t, self.df)), float(stats.t.cdf(t, self.df))

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


def _within(reps: list[pd.Series | None], units: float) -> tuple[pd.Series | None, float, float]:
    """(the seed mean on every replicate, its bootstrap variance, that variance's df): replicate b of
    every seed side by side (by position in replicate order), the variance corrected to the unbiased
    one for G clusters (G / (G - 1), G - 1 df); (None, 0, inf) unless every seed has replicates."""
    if not reps or any(r is None for r in reps):
        return None, 0.0, np.inf
    n = min(len(r) for r in reps)
    stacked = np.column_stack([pd.to_numeric(r, errors="coerce").to_numpy(dtype=float)[:n] for r in reps])
    mean = pd.Series(stacked.mean(axis=1), index=pd.RangeIndex(n, name="replicate"))  # NaN where a seed has none
    known = mean.dropna()
    variance = float(known.var(ddof=1)) if len(known) > 1 else 0.0
    if np.isfinite(units):
        return mean, variance * units / (units - 1) if units > 1 else np.inf, max(units - 1, 1.0)
    return mean, variance, np.inf


def seed_mean(points: list, reps: list[pd.Series | None], units: float = np.inf) -> SeedMean:
    """The mean over k seeds of one quantity (``points``: each seed's value; ``reps``: each seed's
    bootstrap replicates, None where it has none), its standard error sqrt(s_b^2 / k + V_w) and
    Welch-Satterthwaite df (module docstring). Fewer than 2 seeds: no standard error (NaN)."""
    x = np.asarray(points, dtype=float)
    k = len(x)
    mean_reps, within, df_within = _within(reps, units)
    if k < 2:
        return SeedMean(tuple(points), float(x.mean()) if k else np.nan, np.nan, np.nan, mean_reps, units)
    between = float(x.var(ddof=1)) / k
    df = seed_df(between, k - 1, within, df_within)
    parts = {"between": between, "within": within}
    return SeedMean(tuple(points), float(x.mean()), float(np.sqrt(between + within)), df, mean_reps, units, None, parts)


def widened(point: float, reps: pd.Series, units: float, sd: float, k_ref: int) -> SeedMean:
    """One seed's value with its bootstrap variance (corrected for G clusters as :func:`seed_mean`)
    plus the seed reference's between-seed variance ``sd``^2 (``k_ref`` - 1 df): what a new seed's
    value could be, read as a t interval with the df of :func:`seed_df`."""
    _, within, df_within = _within([reps], units)
    between = float(sd) ** 2
    df = seed_df(between, k_ref - 1, within, df_within)
    parts = {"between": between, "within": within}
    se = float(np.sqrt(between + within))
    return SeedMean((point,), float(point), se, df, reps, units, (float(sd), int(k_ref)), parts)


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
