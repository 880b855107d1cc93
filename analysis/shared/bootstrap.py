"""Percentile bootstrap intervals of a score computed from paired per-row predictions and gold labels.

Rows (dev examples) are the units resampled: each replicate draws as many rows as there are, with
replacement, and recomputes the score on them; the interval is the replicates' 2.5th and 97.5th
percentiles. Seeded, so the same rows give the same interval.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Score = Callable[[np.ndarray, np.ndarray], float]


def resamples(n_rows: int, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, n_rows) row indices drawn with replacement."""
    return np.random.default_rng(seed).integers(0, n_rows, size=(n_boot, n_rows))


def percentile_interval(replicates: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    tail = (1 - level) / 2
    return float(np.quantile(replicates, tail)), float(np.quantile(replicates, 1 - tail))


def score_interval(
    score: Score, pred, gold, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Interval of ``score(pred, gold)`` over resampled rows."""
    pred, gold = np.asarray(pred), np.asarray(gold)
    reps = np.array([score(pred[i], gold[i]) for i in resamples(len(gold), n_boot, seed)])
    return percentile_interval(reps, level)


def gain_interval(
    score: Score, pred, baseline_pred, gold, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Interval of ``score(pred, gold) - score(baseline_pred, gold)``, both scored on the same
    resampled rows (paired: the rows' difficulty cancels)."""
    pred, base, gold = np.asarray(pred), np.asarray(baseline_pred), np.asarray(gold)
    reps = np.array([score(pred[i], gold[i]) - score(base[i], gold[i]) for i in resamples(len(gold), n_boot, seed)])
    return percentile_interval(reps, level)
