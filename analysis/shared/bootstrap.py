"""Percentile bootstrap: intervals of a score from paired per-row predictions and gold labels, and
replicate tables for the claim scorecard.

Rows (dev examples) are the units resampled: each resample draws as many rows as there are, with
replacement, and the score is recomputed on it; the interval is the 2.5th and 97.5th percentiles
of the resamples' scores. Seeded, so the same rows give the same interval.

Replicate tables (``<stem>.boot.csv`` beside a claim table ``<stem>.csv``): the same table computed
on each of ``resamples`` (config ``bootstrap.resamples``) resamples of its independent units
(segments, sentences, documents, instances), numbered in the column ``replicate`` (0 ..
resamples - 1); the scorecard computes a claim's value on every resample for its 95% interval.
:func:`unit_weights` gives each resample's multiplicity of every unit, so a table made of per-unit
sums is recomputed as a weighted sum (``weights @ per_unit``), with no copy of the units.

Units are not always independent: Wikipedia segments of one article, treebank sentences of one
document share their topic, vocabulary and writer. :func:`cluster_weights` is the cluster
bootstrap: it draws whole clusters (articles, documents) with replacement, and every unit of a
drawn cluster gets the cluster's multiplicity, so the interval is about the population of
clusters. A resample's weights then no longer sum to the number of units: a statistic that is a
mean of units must divide by the resample's own total weight (``weights.sum(1)``), never by
``n_units``.

Few clusters: the percentile interval of G resampled clusters is too narrow (the bootstrap's
variance is (G - 1)/G of the unbiased one, and a variance estimated from G units calls for t
quantiles with G - 1 degrees of freedom). A replicate table resampled by cluster says how many
clusters each resample drew (column ``resampled_units``, :func:`with_resampled`), and the
scorecard widens its interval accordingly (:func:`analysis.scorecard.few_units.required_share`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

Score = Callable[[np.ndarray, np.ndarray], float]
# column of a replicate table: how many independent units (clusters) each of its resamples drew
RESAMPLED = "resampled_units"


def resample_indices(n_rows: int, resamples: int, seed: int) -> np.ndarray:
    """(resamples, n_rows) row indices drawn with replacement."""
    return np.random.default_rng(seed).integers(0, n_rows, size=(resamples, n_rows))


def unit_weights(n_units: int, resamples: int, seed: int) -> np.ndarray:
    """(resamples, n_units) int: how often each unit is drawn in each resample (each row sums to
    ``n_units``; the same draws as :func:`resample_indices`)."""
    idx = resample_indices(n_units, resamples, seed)
    out = np.zeros((resamples, n_units), dtype=np.int64)
    np.add.at(out, (np.repeat(np.arange(resamples), n_units), idx.ravel()), 1)
    return out


def cluster_weights(clusters: Sequence[Hashable], resamples: int, seed: int) -> np.ndarray:
    """(resamples, n_units) int: how often each unit's cluster is drawn in each resample, ``clusters``
    giving every unit's cluster key. Each resample draws as many clusters as there are, with
    replacement (clusters numbered in order of first appearance, drawn as :func:`unit_weights`
    draws units), so the units of one cluster always share a weight and a resample's weights sum
    to the sizes of the clusters it drew. With every cluster a singleton, exactly
    ``unit_weights(n_units, resamples, seed)``."""
    index: dict = {}
    member = np.array([index.setdefault(c, len(index)) for c in clusters], dtype=np.int64)
    drawn = unit_weights(len(index), resamples, seed)  # (resamples, n_clusters)
    return drawn[:, member] if len(member) else np.zeros((resamples, 0), dtype=np.int64)


def n_clusters(clusters: Sequence[Hashable]) -> int:
    """How many clusters :func:`cluster_weights` draws for ``clusters`` (each resample draws that many)."""
    return len(set(clusters))


def with_resampled(table, n_units: int):
    """The replicate table ``table`` (a DataFrame) with column ``resampled_units`` = ``n_units``:
    the independent units each resample drew (clusters, or units drawn one by one), read by the
    scorecard's few-unit correction."""
    return table.assign(**{RESAMPLED: int(n_units)})


def percentile_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` interval of a statistic's ``values`` over the resamples."""
    tail = (1 - level) / 2
    return float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail))


def score_interval(
    score: Score, pred, gold, resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Interval of ``score(pred, gold)`` over resampled rows."""
    pred, gold = np.asarray(pred), np.asarray(gold)
    scores = np.array([score(pred[i], gold[i]) for i in resample_indices(len(gold), resamples, seed)])
    return percentile_interval(scores, level)


def gain_interval(
    score: Score, pred, baseline_pred, gold, resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Interval of ``score(pred, gold) - score(baseline_pred, gold)``, both scored on the same
    resampled rows (paired: the rows' difficulty cancels)."""
    pred, base, gold = np.asarray(pred), np.asarray(baseline_pred), np.asarray(gold)
    rows = resample_indices(len(gold), resamples, seed)
    gains = np.array([score(pred[i], gold[i]) - score(base[i], gold[i]) for i in rows])
    return percentile_interval(gains, level)
