"""A check's ``interval: t``: the percentile interval read as a t (analysis.scorecard.t_reading),
its p and firm verdict checked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.scorecard.calibrated_tails import CalibratedTails
from analysis.scorecard.evaluate import INCONCLUSIVE, evaluate_claim
from analysis.scorecard.run import Run

BASE = {"id": "c.x", "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
# 1,001 replicates evenly from 0.55 to 0.65 about a point of 0.6: the 2.5th / 97.5th percentiles are
# 0.5525 / 0.6475, so each side's half-width is 0.0475 and its standard error 0.0475 / 1.95996
REPS = np.linspace(0.55, 0.65, 1001)
SE = 0.0475 / stats.norm.ppf(0.975)


def _run(tails=None, units=np.inf):
    boot = pd.DataFrame({"replicate": np.arange(len(REPS)), "v": REPS, "resampled_units": units})
    return Run({"t": pd.DataFrame({"v": [0.6]})}, {"t": boot}, calibrated_tails=tails)


def _above(threshold, interval):
    return {
        **BASE,
        "check": {"value": {"table": "t", "column": "v"}, "op": ">", "threshold": threshold, "interval": interval},
    }


@pytest.mark.parametrize("interval", ["percentile", "t"])
def test_at_95_percent_t_decides_where_the_percentile_interval_does(interval):
    assert evaluate_claim(_above(0.552, interval), _run()).verdict == "holds"  # below the 2.5th percentile
    assert evaluate_claim(_above(0.553, interval), _run()).verdict == INCONCLUSIVE  # above it
    assert evaluate_claim(_above(0.553, interval), _run()).interval == "[0.552, 0.647]"


def test_the_p_is_the_t_on_the_side_facing_the_threshold():
    out = evaluate_claim(_above(0.5, "t"), _run())
    assert out.judged.p_holds == pytest.approx(stats.norm.sf(0.1 / SE))  # 1.8e-5, below 1 / 1,001
    assert out.judged.p_fails == pytest.approx(stats.norm.cdf(0.1 / SE))
    # 14 clusters: the percentiles widened to the share Phi(sqrt(14/13) t(0.975, 13)), the t with 13 df
    share = stats.norm.cdf(np.sqrt(14 / 13) * stats.t.ppf(0.975, 13))
    se = (0.6 - np.quantile(REPS, 1 - share)) / stats.t.ppf(0.975, 13)
    out = evaluate_claim(_above(0.5, "t"), _run(units=14))
    assert out.judged.p_holds == pytest.approx(stats.t.sf(0.1 / se, 13))


def test_a_tail_below_one_over_the_resamples_binds_on_t_alone():
    tails = CalibratedTails("tails.csv", {"c.x": {"holds": 1e-5}}, "m @ abc")
    # every replicate agrees: the share rule is firm at any tail, the t's p (1.8e-5) is above 1e-5
    assert evaluate_claim(_above(0.5, "percentile"), _run(tails)).verdict == "holds"
    assert evaluate_claim(_above(0.5, "t"), _run(tails)).verdict == INCONCLUSIVE
    wider = CalibratedTails("tails.csv", {"c.x": {"holds": 2e-5}}, "m @ abc")
    assert evaluate_claim(_above(0.5, "t"), _run(wider)).verdict == "holds"


def _order_run(tails=None):
    """Two levels of x > y: a holds at the point (0.7 > 0.5), b fails (0.5 < 0.6); y's replicates
    sit on its point, x's spread as REPS about its own."""
    point = pd.DataFrame({"g": ["a", "b"], "x": [0.7, 0.5], "y": [0.5, 0.6]})
    boot = pd.concat(
        pd.DataFrame({"replicate": np.arange(len(REPS)), "g": g, "x": REPS - 0.6 + x, "y": y})
        for g, x, y in point.itertuples(index=False)
    )
    return Run({"t": point}, {"t": boot.assign(resampled_units=np.inf)}, calibrated_tails=tails)


ORDER = {
    **BASE,
    "check": {"per": "g", "interval": "t", "greater": [{"table": "t", "column": "x"}, {"table": "t", "column": "y"}]},
}


def test_a_failing_level_is_read_on_its_t_with_bonferroni_over_the_levels():
    out = evaluate_claim(ORDER, _order_run())
    assert out.verdict == "does not hold"
    level_p = stats.norm.cdf(-0.1 / SE)  # b: the difference -0.1, its upper half-width 0.0475
    assert out.judged.levels["b"].p_fails == pytest.approx(level_p)
    assert out.judged.p_fails == pytest.approx(2 * level_p)
    # a tail of 1e-5 for does not hold: b's p read as 1.8e-5 / 0.0004 = 0.046, above 0.025 / 2
    tails = CalibratedTails("tails.csv", {"c.x": {"does not hold": 1e-5}}, "m @ abc")
    assert evaluate_claim(ORDER, _order_run(tails)).verdict == INCONCLUSIVE
    shares = {**ORDER, "check": {**ORDER["check"], "interval": "percentile"}}
    assert evaluate_claim(shares, _order_run(tails)).verdict == "does not hold"  # every replicate agrees
