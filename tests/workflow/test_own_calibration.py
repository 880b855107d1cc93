"""The calibration on the project's own data (tools/measure/own_calibration.py), small: its nested
resampling and MDE by hand, and its size and power on per-unit data whose truth is known."""

import numpy as np
import pandas as pd
import pytest

from analysis.scorecard.values import REPLICATE
from tools.measure.own_calibration import calibrate_family
from tools.measure.own_families import Family, nested_weights


def test_nested_weights_resample_the_drawn_clusters_only():
    clusters = np.array([0, 0, 1, 2, 2, 2])  # 3 clusters of 2, 1 and 3 units
    rng = np.random.default_rng(3)
    outer, inner = nested_weights(clusters, 50, rng)
    drawn = np.random.default_rng(3).integers(0, 3, 3)  # the same first draw: the dataset's clusters
    assert outer.tolist() == np.bincount(drawn, minlength=3)[clusters].tolist()
    per_cluster = inner[:, [0, 2, 3]]  # one unit of each cluster: the cluster's multiplicity
    assert (per_cluster.sum(1) == 3).all()  # every resample draws 3 clusters
    assert (per_cluster[:, outer[[0, 2, 3]] == 0] == 0).all()  # never one the dataset lacks
    assert (inner[:, 0] == inner[:, 1]).all() and (inner[:, 3] == inner[:, 5]).all()  # clusters drawn whole


def test_mde_interpolates_the_power_curve():
    from tools.measure.own_rates import mde

    assert mde([0.02, 0.3, 0.7, 0.9, 1.0]) == pytest.approx(2.5)  # 0.8 halfway between k = 2 and 3
    assert mde([0.02, 0.85, 0.9, 0.95, 1.0]) == pytest.approx(0.78 / 0.83)  # between k = 0 and 1
    assert mde([0.0, 0.1, 0.2, 0.3, 0.4]) == np.inf


def _family(n=30, per=20, seed=0):
    """n clusters of ``per`` binary units (each cluster with its own rate): one accuracy table."""
    rng = np.random.default_rng(seed)
    x = rng.binomial(1, np.repeat(rng.uniform(0.3, 0.9, n), per)).astype(float)
    clusters = np.repeat(np.arange(n), per)

    def make(w):
        acc = w @ x / w.sum(1)
        return {"t": pd.DataFrame({REPLICATE: np.arange(len(w)), "system": "head", "accuracy": acc})}

    return Family("t", clusters, make)


# the head's accuracy above 0.5: the claim of both tests below
ABOVE_HALF = {"value": {"table": "t", "column": "accuracy", "where": {"system": "head"}}, "op": ">", "threshold": 0.5}


def test_size_and_power_on_data_with_a_known_truth():
    """A value against a threshold, on 30 clustered documents: wrong firm verdicts rare on the
    threshold, power rising with the distance from it, the MDE of a two-sided 95% test (~2.8 SE)."""
    claim = {"id": "t.claim", "check": ABOVE_HALF}
    row = calibrate_family(_family(), [claim], datasets=300, resamples=300, seed=1).iloc[0]
    bound = 0.025 + 3 * np.sqrt(0.025 * 0.975 / 300)
    assert row.wrong_holds <= bound and row.wrong_does_not_hold <= bound
    assert row.power_holds_1se < row.power_holds_3se and row.power_does_not_hold_1se < row.power_does_not_hold_3se
    assert row.power_holds_4se >= 0.8 and 2 <= row.mde80_holds_se <= 4
    assert row.note == "" and row.clusters == 30 and row.levels == 1


def test_a_claim_without_spread_is_named_not_calibrated():
    claim = {"id": "t.flat", "check": ABOVE_HALF}
    flat = Family(
        "t",
        np.arange(10),
        lambda w: {"t": pd.DataFrame({REPLICATE: np.arange(len(w)), "system": "head", "accuracy": 0.7})},
    )
    row = calibrate_family(flat, [claim], datasets=5, resamples=20, seed=0).iloc[0]
    assert row.note.startswith("not covered: its bootstrap SD on the run is 0")


def test_appended_rows_replace_their_claim_and_interval_and_follow_their_claim():
    from tools.measure.own_rows import appended

    old = pd.DataFrame({"claim": ["a", "b", "c"], "interval": ["percentile"] * 3, "x": [1, 2, 3]})
    new = pd.DataFrame({"claim": ["b", "a"], "interval": ["bc", "percentile"], "x": [20, 10]})
    out = appended(old, new)
    assert list(zip(out.claim, out.interval, out.x)) == [
        ("a", "percentile", 10),
        ("b", "percentile", 2),
        ("b", "bc", 20),
        ("c", "percentile", 3),
    ]


def test_tails_of_the_null_datasets_by_hand():
    from tools.measure.own_rates import tails_of

    # 80 datasets (2 may be firm each way): 3 firm holds (p 0.001, 0.002, 0.02), 1 firm does not hold
    verdicts = [("holds", 0.001, 1.0), ("holds", 0.02, 0.9), ("holds", 0.002, 1.0), ("does not hold", 1.0, 0.004)]
    verdicts += [("inconclusive", 0.3, 0.4)] * 76
    assert tails_of(verdicts) == pytest.approx(((0.002 + 0.02) / 2, 0.025))


def test_a_calibrated_row_the_claim_reads_now_retires_its_nominal_rows():
    from tools.measure.own_rows import appended

    old = pd.DataFrame({"claim": ["a", "b"], "interval": ["percentile"] * 2, "now": [True, True]})
    new = pd.DataFrame({"claim": ["a"], "interval": ["percentile"], "tails": ["calibrated"], "now": [True]})
    out = appended(old, new)
    assert list(zip(out.claim, out.tails, out.now)) == [
        ("a", "nominal", False),
        ("a", "calibrated", True),
        ("b", "nominal", True),
    ]


def test_a_value_a_shift_does_not_move_by_as_much_is_named_not_covered():
    from tools.measure.own_shifts import NotCovered, quantity_of

    spec = {"table": "t", "column": "prev"}
    assert quantity_of({"value": {**spec, "agg": "max"}, "op": ">", "threshold": 0}).spec["column"] == "prev"
    with pytest.raises(NotCovered, match="a count of rows"):
        quantity_of({"value": {**spec, "agg": "count"}, "op": ">", "threshold": 0})
    with pytest.raises(NotCovered, match="chosen on 'prev'"):
        quantity_of({"value": {**spec, "where": {"prev": {">": 0.5}}}, "op": ">", "threshold": 0})
    with pytest.raises(NotCovered, match="chosen on 'prev'"):
        quantity_of({"greater": [spec, {**spec, "query": "prev > 0.5 or next > 0.5"}]})
    # another column of the same name's prefix is no condition on it
    assert quantity_of({"value": {**spec, "query": "prevalent > 1"}, "op": ">", "threshold": 0})


def test_readme_names_where_the_calibrated_claims_stand_in_the_paper():
    from tools.docs.calibration_table import covered

    assert covered(pd.Series(["dep_heads.gum_sd_dev", "coref_heads"])) == "Clark's Table 1 and Table 2"
    both = pd.Series(["coref_heads", "explanation", "surface_sums", "dep_heads.gum_sd_dev"])
    assert covered(both) == "Clark's sec. 3, Table 1 and Table 2; Serrano & Smith's and Jain & Wallace's tests"
    assert covered(pd.Series(["surface_sums"])) == "Clark's sec. 3"


def test_a_table_of_claims_none_of_them_covered_prints_their_reasons():
    from tools.docs.calibration_table import own_markdown

    table = pd.DataFrame({"claim": ["c.x"], "data": ["d"], "note": ["not covered: a count of rows"], "now": [False]})
    text = own_markdown(table)
    assert "| `c.x` | | | | | not covered: a count of rows |" in text and "resampled datasets" not in text


def test_rows_of_two_dataset_counts_are_each_read_at_their_own_bound():
    from tools.docs.calibration_table import own_markdown, own_summary

    mc1000, mc300 = np.sqrt(0.025 * 0.975 / 1000), np.sqrt(0.025 * 0.975 / 300)  # bounds 3.5% and 4.3%
    row = dict(interval="percentile", clusters=14, levels=1, se=0.01, now=True, note="", resamples=1000)
    row |= dict(power_holds_2se=0.4, power_does_not_hold_2se=0.4, mde80_holds_se=3.0, mde80_does_not_hold_se=3.1)
    table = pd.DataFrame(
        [
            {**row, "claim": "a", "data": "dep_heads.x", "datasets": 1000, "mc_se_size": mc1000, "wrong_holds": 0.034},
            {**row, "claim": "b", "data": "explanation", "datasets": 300, "mc_se_size": mc300, "wrong_holds": 0.040},
            {**row, "claim": "c", "data": "explanation", "datasets": 300, "mc_se_size": mc300, "wrong_holds": 0.044},
        ]
    ).assign(wrong_does_not_hold=0.01)
    table.loc[2, "mde80_holds_se"] = np.inf  # 80% power beyond the largest shift measured (4 SE)
    text = own_summary(table)
    # 4.0% is within the 300 datasets' bound though above the 1,000's; 4.4% is above it
    assert "of 1000 or 300 resampled datasets (target 2.5% + two Monte Carlo SE: 3.5% or 4.3%; above it: `c`)" in text
    assert "3 to 3.1 standard errors from its threshold to be reached 80% of the time, more than 4 on 1 of them" in text
    page = own_markdown(table)
    assert "| > 4 / 3.1 |" in page
    assert "1000 resampled datasets per claim (Clark's Table 1), 1000 resamples each" in page
    assert "300 resampled datasets per claim (Serrano & Smith's and Jain & Wallace's tests)" in page
