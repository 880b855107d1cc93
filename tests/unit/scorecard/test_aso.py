"""Almost stochastic order (Dror et al. 2019) on seed sets with answers computed by hand, and beside
an order over seeds in the scorecard's terms."""

import numpy as np
import pandas as pd
import pytest

from analysis.scorecard.aso import almost_stochastic_order, violation_ratio


def test_violation_ratio_by_hand():
    assert violation_ratio([3, 4, 5], [0, 1, 2]) == 0.0  # A's quantiles above B's everywhere
    assert violation_ratio([0, 1, 2], [3, 4, 5]) == 1.0
    # A = {0, 10}, B = {4, 6}: A below by 4 on half of [0, 1], above by 4 on the other half
    assert violation_ratio([0, 10], [4, 6]) == pytest.approx(0.5)
    # A = {1, 10}, B = {2, 3}: below by 1 on one half, above by 7 on the other: 1 / (1 + 49)
    assert violation_ratio([1, 10], [2, 3]) == pytest.approx(1 / 50)
    assert np.isnan(violation_ratio([1, 2], [2, 1]))  # the same quantile function: no ratio


def test_eps_min_is_an_upper_bound():
    # separated seed sets: every resample keeps A above B
    assert almost_stochastic_order([3, 4, 5], [0, 1, 2]) == 0.0
    # overlapping: the bound lies above the plain ratio
    a, b = [0.61, 0.64, 0.60, 0.66, 0.63], [0.60, 0.62, 0.59, 0.61, 0.64]
    assert almost_stochastic_order(a, b) > violation_ratio(a, b)
    assert almost_stochastic_order(a, b, seed=3) == almost_stochastic_order(a, b, seed=3)
    # fewer than 2 seeds: none
    assert np.isnan(almost_stochastic_order([1.0], [0.0, 0.5]))


def test_an_order_over_seeds_reports_it():
    from analysis.scorecard.checks import run_check
    from analysis.scorecard.run import Run
    from analysis.scorecard.terms import judgement_terms

    check = {"greater": [{"table": "t", "column": "a"}, {"table": "t", "column": "b"}]}
    seeds = [(0.9, 0.1), (0.8, 0.2), (0.85, 0.15)]  # a above b on every seed
    runs = [Run({"t": pd.DataFrame({"a": [a], "b": [b]})}) for a, b in seeds]
    run = Run(runs[0].tables, trainings=runs[1:])
    judged = run_check(check, run)
    assert judged.seeds == 3 and judged.aso == [0.0]
    assert judgement_terms(judged)["aso1"] == 0.0
