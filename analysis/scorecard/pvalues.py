"""The p of a check's two directions (holds, does not hold), from its bootstrap replicates (over
training seeds: the t of :meth:`analysis.scorecard.seeds.SeedMean.sided_p`), and over an order's
pairs or a per-level check's levels: each check's two-sided p is twice the smaller (:attr:`analysis.scorecard.checks.Judgement.p_value`), what Benjamini-Hochberg
reads across the claims (:mod:`analysis.scorecard.multiplicity`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.scorecard.few_units import few_unit_p


def direction_p(outcomes: pd.Series, units: float = np.inf) -> tuple[float, float]:
    """Bootstrap p of each direction, (p of holds, p of does not hold): (1 + replicates against
    it) / (1 + replicates with a value), corrected for few clusters (:func:`few_unit_p`)."""
    known = outcomes.dropna()
    if not len(known):
        return np.nan, np.nan
    against = [(known != ok).sum() for ok in (True, False)]
    return tuple(few_unit_p(float((1 + a) / (1 + len(known))), units) for a in against)


def combined(ps: list[tuple[float, float]], failing: int) -> tuple[float, float]:
    """(p of holds, p of does not hold) of a check that holds when every part (pair, level) holds: the
    largest part p of holds (an intersection-union test), and ``failing`` x the smallest part p of
    does not hold (Bonferroni over the ``failing`` parts one of which must fail), at most 1."""
    one = lambda p: 1.0 if np.isnan(p) else p  # noqa: E731 (a part without a p shows nothing)
    return max(one(p) for p, _ in ps), min(1.0, failing * min(one(p) for _, p in ps))
