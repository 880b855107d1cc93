"""The rates the calibration on the project's own data (tools/measure/own_calibration.py) reads off
its datasets' verdicts: a firm verdict's share each way, the calibrated tails, the 80% minimum
detectable effect."""

from __future__ import annotations

import numpy as np

from analysis.scorecard.calibrated_tails import calibrated_tail

GRID = (0, 1, 2, 3, 4)  # the claim quantity's true value, in SE toward a side
POWER = 0.8


def tally(verdicts: list[tuple]) -> tuple[float, float]:
    n = len(verdicts)
    if not n:  # a shift not evaluated
        return np.nan, np.nan
    return sum(v[0] == "holds" for v in verdicts) / n, sum(v[0] == "does not hold" for v in verdicts) / n


def tails_of(verdicts: list[tuple]) -> tuple[float, float]:
    """The calibrated tails (holds, does not hold) of the datasets with the quantity on the threshold:
    each the level below which at most 2.5% of them are still firm that way (:func:`calibrated_tail`)."""
    firm_holds = [p for v, p, _ in verdicts if v == "holds"]
    firm_fails = [p for v, _, p in verdicts if v == "does not hold"]
    return calibrated_tail(firm_holds, len(verdicts)), calibrated_tail(firm_fails, len(verdicts))


def mde(power: list[float]) -> float:
    """The smallest k (SE) where power reaches 80%, interpolated linearly on GRID; inf beyond it
    (NaN where the power was not measured)."""
    if np.isnan(power).any():
        return np.nan
    for (k0, p0), (k1, p1) in zip(zip(GRID, power), zip(GRID[1:], power[1:])):
        if p1 >= POWER:
            return float(k1) if p0 >= POWER or p1 == p0 else k0 + (POWER - p0) / (p1 - p0) * (k1 - k0)
    return float("inf")
