"""Almost stochastic order (Dror, Shlomov & Reichart 2019, "Deep Dominance"): how far the scores
of model A over its training seeds are from stochastically dominating model B's. The violation
ratio is the share of the squared distance between their quantile functions where A's lies below
B's,

    eps(A, B) = int_{F_A^-1(t) < F_B^-1(t)} (F_A^-1(t) - F_B^-1(t))^2 dt / int (F_A^-1(t) - F_B^-1(t))^2 dt,

0 where A dominates, 1 where B does; eps_min is its (1 - alpha) upper confidence bound from the
bootstrap of both seed sets, eps + z(1 - alpha) sd(eps*). Dror et al. read A as almost dominating B
where eps_min < 0.5 (0.2 is stricter). It is reported beside an order over seeds, not a verdict:
the seeds' t interval decides (:mod:`analysis.scorecard.seeds`)."""

from __future__ import annotations

import numpy as np
from scipy import stats

GRID = 1000  # points of the quantile functions (mid-points of [0, 1])
RESAMPLES = 1000
ALPHA = 0.05


def _quantiles(x: np.ndarray, grid: int) -> np.ndarray:
    """Each row's quantile function (inverted cdf, as ``np.quantile``'s) at the grid's mid-points
    of [0, 1]: the sorted row read at the positions that method picks for its length."""
    t = (np.arange(grid) + 0.5) / grid
    at = np.quantile(np.arange(x.shape[-1]), t, method="inverted_cdf").astype(int)
    return np.sort(x, axis=-1)[..., at]


def _ratio(d: np.ndarray) -> float:
    """The violation ratio of one difference of quantile functions (A's minus B's)."""
    total = float(np.sum(d * d))
    return float(np.sum(d[d < 0] ** 2) / total) if total > 0 else np.nan


def violation_ratio(a, b, grid: int = GRID) -> float:
    """eps(A, B) of score samples ``a`` and ``b`` (module docstring); NaN where their quantile
    functions agree everywhere (neither dominates: no ratio)."""
    a, b = (np.asarray(x, dtype=float)[None, :] for x in (a, b))
    return _ratio((_quantiles(a, grid) - _quantiles(b, grid))[0])


def almost_stochastic_order(a, b, resamples: int = RESAMPLES, seed: int = 0, alpha: float = ALPHA) -> float:
    """eps_min(A, B): the (1 - ``alpha``) upper bound of the violation ratio of ``a`` (A's score on
    each seed) over ``b`` (B's), each seed set resampled with replacement ``resamples`` times
    (seeded); in [0, 1]; NaN with fewer than 2 seeds on a side or no ratio."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if min(len(a), len(b)) < 2 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        return np.nan
    eps = violation_ratio(a, b)
    if not np.isfinite(eps):
        return np.nan
    rng = np.random.default_rng(seed)
    if len(a) == len(b):  # the draws one loop of rng.choice(a), rng.choice(b) makes, all at once
        picks = rng.integers(0, len(a), size=(resamples, 2, len(a)))
        draws_a, draws_b = a[picks[:, 0]], b[picks[:, 1]]
    else:
        draws = [(rng.choice(a, len(a)), rng.choice(b, len(b))) for _ in range(resamples)]
        draws_a, draws_b = np.array([x for x, _ in draws]), np.array([y for _, y in draws])
    differences = _quantiles(draws_a, GRID) - _quantiles(draws_b, GRID)  # every resample's at once
    boot = np.array([_ratio(d) for d in differences], dtype=float)
    spread = float(np.nanstd(boot)) if np.isfinite(boot).any() else 0.0
    return float(np.clip(eps + stats.norm.ppf(1 - alpha) * spread, 0.0, 1.0))
