"""Few independent units: how much more a verdict asks of replicates that resampled only G
clusters (documents, articles), or G units one by one. The percentile interval of G resampled clusters is too narrow (the
bootstrap's variance is (G - 1)/G of the unbiased one, and a variance read from G units calls for
t quantiles with G - 1 degrees of freedom), so the share of replicates a firm verdict needs is
raised to match, the bootstrap p corrected alike, and fewer than ``MIN_CLUSTERS`` clusters give no
firm verdict at all. A replicate table says how many units it drew (column ``resampled_units``,
:func:`analysis.shared.bootstrap.with_resampled`): clusters where it resampled clusters, else its
units (dev examples, instances), where the correction is small (200 units: the interval 0.9% wider)
but keeps a value on its threshold at the 2.5% per direction it promises (tools/measure/calibration.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from analysis.scorecard.values import interval_of, select
from analysis.shared.bootstrap import RESAMPLED

# fewer clusters than this give no firm verdict: the widened percentiles cannot reach past the most
# extreme cluster (calibration: 2 clusters 23% / 28% wrong firm verdicts, 3: 14% / 11%, 5: 3.6% / 4.2%)
MIN_CLUSTERS = 10


def required_share(tail: float, units: float = np.inf) -> float:
    """The share of the replicates that must agree for a firm verdict at one-sided level ``tail``,
    their table resampled from ``units`` independent units (clusters; inf: many). With many units,
    1 - ``tail`` (the percentile bootstrap). With G clusters the percentile interval is too narrow:
    the bootstrap's variance is (G - 1)/G of the unbiased one, and a variance read from G units
    calls for a t quantile with G - 1 degrees of freedom; the share is then the normal probability
    of the corrected quantile sqrt(G / (G - 1)) * t(1 - tail, G - 1) (the interval widened by that
    ratio, read off the replicates' own distribution). Fewer than 2 units: never firm (inf)."""
    if not np.isfinite(units):
        return 1 - tail
    if units < 2:
        return np.inf
    return float(stats.norm.cdf(np.sqrt(units / (units - 1)) * stats.t.ppf(1 - tail, units - 1)))


def few_unit_p(p: float, units: float = np.inf) -> float:
    """A bootstrap p (share of replicates against a verdict) corrected as :func:`required_share`
    corrects the share: p <= alpha exactly where the share agreeing reaches ``required_share(alpha)``."""
    if not np.isfinite(units) or not np.isfinite(p):
        return p
    if units < 2:
        return 1.0
    return float(stats.t.sf(stats.norm.isf(p) / np.sqrt(units / (units - 1)), units - 1))


def units_of(boots, spec) -> float:
    """How many independent units (clusters, or units drawn one by one) the replicates of
    ``spec``'s rows drew (column ``resampled_units``; the fewest over the rows its ``where``
    selects, else over the table; inf where the table says inf: read as the plain percentile
    interval). A replicate table that does not say, or leaves it empty, is an error naming it: taken
    as infinitely many units it would skip the few-cluster widening and the 10-cluster floor."""
    boot = (boots or {}).get(spec["table"])
    if boot is None:
        return np.inf
    fix = "rerun its rule (analysis.shared.bootstrap.with_resampled writes it)"
    if RESAMPLED not in boot.columns:
        raise ValueError(f"replicate table {spec['table']}.boot.csv has no column {RESAMPLED}: {fix}")
    try:
        rows = select(boot, spec.get("where"))
    except KeyError:  # a condition on a column only the point table has
        rows = boot
    units = pd.to_numeric((rows if len(rows) else boot)[RESAMPLED], errors="coerce")
    if units.isna().any():
        raise ValueError(f"replicate table {spec['table']}.boot.csv: column {RESAMPLED} has empty rows: {fix}")
    return float(units.min())


@dataclass(frozen=True)
class Modal:
    """A categorical value's replicates: their most common value (None: no replicate) and its share."""

    value: object
    share: float


def bounds_of(reps: pd.Series, units: float, tail: float = 0.025):
    """The replicates' 95% interval, widened for few clusters (the percentiles :func:`required_share`
    reads) at one-sided level ``tail`` per end: (low, high); a categorical value's modal share; None
    where no interval is possible."""
    share = required_share(tail, units)
    if not np.isfinite(share):
        return None
    if pd.to_numeric(reps, errors="coerce").notna().sum() == 0:  # categorical values (==): the modal share
        top = reps.value_counts(normalize=True)
        return Modal(top.index[0], float(top.iloc[0])) if len(top) else Modal(None, np.nan)
    return interval_of(reps, share)


def too_few(units: float) -> tuple:
    """Why a table resampled by ``units`` clusters gives no firm verdict (() where it can)."""
    return ("few", units, MIN_CLUSTERS) if np.isfinite(units) and units < MIN_CLUSTERS else ()
