"""Training seeds as a random effect (analysis/scorecard/seeds.py), on tiny inputs whose answers are
worked out by hand in the comments: the seed mean, its between-seed plus bootstrap variance, the
Welch-Satterthwaite df, the verdict never read from k of k seeds agreeing, and the seed reference."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.scorecard.claims import scorecard, scorecard_and_values
from analysis.scorecard.evaluate import INCONCLUSIVE, SEED, evaluate_claim
from analysis.scorecard.run import Run
from analysis.scorecard.seed_reference import read_seed_reference
from analysis.scorecard.seeds import satterthwaite, seed_mean, widened
from analysis.scorecard.trainings import pool_trainings


def claim(check, **kw):
    base = {"id": "c.x", "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {**base, "check": check, **kw}


ABOVE = {"value": {"table": "t", "column": "v"}, "op": ">", "threshold": 0.5}


def seed_run(point, reps, units=np.inf, **columns):
    """One seed's run: its table (one row) and its replicate table (one row per replicate)."""
    boot = pd.DataFrame({"replicate": range(len(reps)), "v": reps, "resampled_units": units, **columns})
    return Run({"t": pd.DataFrame({"v": [point], **{c: [v[0]] for c, v in columns.items()}})}, {"t": boot})


def test_the_seed_mean_adds_the_between_seed_and_the_bootstrap_variance():
    # seed 1: 0.6, replicates 0.58 / 0.60 / 0.62; seed 2: 0.7, replicates 0.66 / 0.70 / 0.74.
    # the seed mean on each replicate: 0.62, 0.65, 0.68 -> its variance (n - 1): (0.03^2 + 0 + 0.03^2) / 2 = 0.0009
    # between: var(0.6, 0.7) = 0.005, / k = 0.0025; total 0.0034, se 0.05831. The df reads the between
    # term at its 80% upper bound, U = 0.0025 x 1 / chi2(0.2; 1) = 0.0025 / 0.064185 = 0.038950:
    # df = (U + 0.0009)^2 / (U^2 / 1) = 0.039850^2 / 0.038950^2 = 1.04675
    reps = [pd.Series([0.58, 0.60, 0.62]), pd.Series([0.66, 0.70, 0.74])]
    e = seed_mean([0.6, 0.7], reps)
    assert e.mean == pytest.approx(0.65) and e.parts == pytest.approx({"between": 0.0025, "within": 0.0009})
    assert stats.chi2.ppf(0.2, 1) == pytest.approx(0.064185, abs=1e-6)
    assert e.se == pytest.approx(np.sqrt(0.0034)) and e.df == pytest.approx(1.04675, abs=1e-5)
    half = stats.t.ppf(0.975, e.df) * np.sqrt(0.0034)  # the df asserted above, unrounded
    assert e.bounds() == pytest.approx((0.65 - half, 0.65 + half))
    # 10 clusters: the bootstrap variance x 10 / 9 = 0.001 with 9 df;
    # df = (0.038950 + 0.001)^2 / (0.038950^2 / 1 + 0.001^2 / 9) = 0.0015960 / 0.0015172 = 1.05193
    e = seed_mean([0.6, 0.7], reps, units=10)
    assert e.parts["within"] == pytest.approx(0.001) and e.df == pytest.approx(1.05193, abs=1e-4)
    assert satterthwaite([(0.0025, 1), (0.001, 9)]) == pytest.approx(1.92576, abs=1e-4)  # the plain formula
    # no bootstrap: the plain t interval over the seeds (k - 1 df)
    e = seed_mean([0.6, 0.7], [None, None])
    assert (e.se, e.df) == (pytest.approx(0.05), 1)


def test_inputs_the_seeds_share_count_once():
    """Replicate b of every seed resamples the same units: the seed mean's bootstrap variance is that
    of their mean, not the seeds' variances over k (seed 1: 0.5 / 0.6 / 0.7, seed 2: 0.6 / 0.7 / 0.8
    move together; their mean 0.55 / 0.65 / 0.75 has variance 0.01, as each seed's, not 0.01 / 2)."""
    e = seed_mean([0.6, 0.7], [pd.Series([0.5, 0.6, 0.7]), pd.Series([0.6, 0.7, 0.8])])
    assert e.parts["within"] == pytest.approx(0.01)
    assert e.reps.tolist() == pytest.approx([0.55, 0.65, 0.75])


def test_every_seed_on_one_side_is_not_enough():
    """Three seeds, each firmly above 0.5 on its own bootstrap (replicates +-0.001), spread far apart:
    0.52, 0.9, 0.6. Stacked side by side (as before) every replicate agrees and it would read holds;
    as a random effect: mean 0.67333, between var((0.52, 0.9, 0.6)) / 3 = 0.040133 / 3 = 0.013378,
    se 0.11566, df 2.0 -> 0.67333 +- 4.3027 x 0.11566 = [0.176, 1.17]: inconclusive."""
    points = (0.52, 0.9, 0.6)
    runs = [seed_run(v, [v - 0.001, v, v + 0.001]) for v in points]
    stacked = pd.concat([r.boots["t"].assign(replicate=r.boots["t"]["replicate"] + 3 * i) for i, r in enumerate(runs)])
    assert evaluate_claim(claim(ABOVE), Run(runs[0].tables, {"t": stacked})).verdict == "holds"  # as before
    row = scorecard([claim(ABOVE, trained="probes")], pool_trainings(runs)).iloc[0]
    assert (row.verdict, row.our_value, row.basis, row.seeds) == (INCONCLUSIVE, "0.673 (mean of 3 seeds)", "seeds", 3)
    assert row.interval == "[0.176, 1.17] (t, 3 seeds)" and row.replicates == 3
    # the two-sided p is the same t's: t = 0.17333 / 0.11566 = 1.4986 on 2.0 df
    assert row.p_value == pytest.approx(2 * stats.t.sf(0.17333 / 0.11566, 2.0), rel=1e-3)


def test_the_two_sided_p_agrees_with_the_interval():
    """p <= 5% exactly where the interval leaves the threshold out (and the verdict is firm), whatever
    the spread of the seeds and of their bootstraps."""
    rng = np.random.default_rng(0)
    firm = []
    for _ in range(40):
        points = 0.5 + rng.normal(0.0, 0.05, 3)
        runs = [seed_run(v, v + rng.normal(0, 0.02, 20), units=14) for v in points]
        judged = evaluate_claim(claim(ABOVE, trained="probes"), pool_trainings(runs)).judged
        (low, high), p = judged.bounds[0], judged.p_value
        assert (p <= 0.05) == judged.firm == (not low <= 0.5 <= high)
        firm.append(judged.firm)
    assert 0 < sum(firm) < len(firm)  # both kinds were met


def test_an_order_over_seeds_reads_each_difference():
    """a > b on 2 seeds: the difference a - b is 0.3 and 0.5 (between var 0.02 / 2 = 0.01), its seed
    mean's replicates 0.39 / 0.40 / 0.41 (variance 0.0001): se sqrt(0.0101) = 0.1005, df
    (0.01 / 0.064185 + 0.0001)^2 / (0.01 / 0.064185)^2 = 1.0013 -> 0.4 +- 12.67 x 0.1005: undecided;
    with 0.39 and 0.41 instead (between 0.0002 / 2 = 0.0001, U = 0.0001 / 0.064185 = 0.001558, total
    0.0002, df (0.001558 + 0.0001)^2 / 0.001558^2 = 1.1325): 0.4 +- 9.680 x 0.014142 = [0.263, 0.537]: holds."""
    order = {"greater": [{"table": "t", "column": "a"}, {"table": "t", "column": "b"}]}

    def run(a, b, spread):
        reps = pd.DataFrame({"replicate": range(3), "a": a + np.array(spread), "b": b, "resampled_units": np.inf})
        return Run({"t": pd.DataFrame({"a": [a], "b": [b]})}, {"t": reps})

    spread = [-0.01, 0.0, 0.01]
    row = scorecard([claim(order, trained="probes")], pool_trainings([run(0.8, 0.5, spread), run(0.9, 0.4, spread)]))
    assert row.iloc[0].verdict == INCONCLUSIVE and row.iloc[0].our_value == "0.85 > 0.45 (means of 2 seeds)"
    row = scorecard([claim(order, trained="probes")], pool_trainings([run(0.8, 0.41, spread), run(0.8, 0.39, spread)]))
    assert (row.iloc[0].verdict, row.iloc[0].interval) == ("holds", "[0.263, 0.537] (t, differences, 2 seeds)")


def test_a_per_level_claim_over_seeds_reads_each_level_and_writes_each_seeds_value():
    """Level A: 0.6 / 0.62 / 0.61 (t interval [0.585, 0.635]: holds); level B: 0.6 / 0.7 / 0.55
    ([0.427, 0.806]): the claim holds at A, is undecided at B."""
    per = {**ABOVE, "per": "g"}

    def run(a, b):
        return Run({"t": pd.DataFrame({"g": ["A", "B"], "v": [a, b]})})

    runs = [run(0.6, 0.6), run(0.62, 0.7), run(0.61, 0.55)]
    card, _, terms = scorecard_and_values([claim(per, trained="probes")], pool_trainings(runs))
    assert card.iloc[0].interval == "A: [0.585, 0.635] (t, 3 seeds); B: [0.427, 0.806] (t, 3 seeds)"
    assert card.iloc[0].verdict == INCONCLUSIVE and card.iloc[0].levels == "1 of 2"
    got = terms.set_index(["group", "term"])["value"]
    assert [got["B", f"value_seed{s}"] for s in (1, 2, 3)] == [0.6, 0.7, 0.55] and got["A", "df"] == 2


def test_a_categorical_value_over_seeds_has_no_mean_and_is_never_firm():
    vertical = {"value": {"table": "t", "column": "label", "agg": "first"}, "op": "==", "threshold": "Vertical"}
    runs = [Run({"t": pd.DataFrame({"label": [x]})}) for x in ("Vertical", "Vertical", "Block")]
    row = scorecard([claim(vertical, trained="finetune")], pool_trainings(runs)).iloc[0]
    assert (row.verdict, row.our_value) == (INCONCLUSIVE, "Vertical (the most common of 3 seeds)")
    assert row.interval == "none (a categorical value over 3 seeds has no mean)"


def test_one_seed_widened_by_the_reference():
    """One seed: 0.6, 40 replicates evenly from 0.56 to 0.64, h = 0.08 / 39 apart (variance (n - 1):
    h^2 n (n + 1) / 12 = 0.00057506). With a between-seed SD of 0.05 over 5 seeds: se^2 = 0.00057506 +
    0.0025 = 0.00307506 (se 0.055453); the df reads 0.0025 at its 80% upper bound, U = 0.0025 x 4 /
    chi2(0.2; 4) = 0.01 / 1.648777 = 0.0060651: df = (U + 0.00057506)^2 / (U^2 / 4) = 4.7945,
    half-width t(0.975, 4.79) x se = 2.6041 x 0.055453 = 0.14441 -> [0.456, 0.744]: does not decide
    > 0.5. SD 0.01: U = 0.0004 / 1.648777 = 0.00024260, df = (U + 0.00057506)^2 / (U^2 / 4) = 45.44,
    half-width 2.0136 x 0.025982 = 0.05232 -> [0.548, 0.652]: decides."""
    reps = pd.Series(np.linspace(0.56, 0.64, 40))
    e = widened(0.6, reps, np.inf, 0.05, 5)
    assert e.se**2 == pytest.approx(0.00307506, rel=1e-5) and e.df == pytest.approx(4.7945, abs=1e-3)
    assert e.bounds() == pytest.approx((0.4556, 0.7444), abs=1e-4) and e.reference == (0.05, 5)
    assert widened(0.6, reps, np.inf, 0.01, 5).bounds() == pytest.approx((0.5477, 0.6523), abs=1e-4)


def _reference(tmp_path, rows):
    path = tmp_path / "seed_reference.csv"
    cols = ["id", "group", "quantity", "sd", "seeds", "model", "commit"]
    pd.DataFrame(rows, columns=cols).to_csv(path, index=False)
    return read_seed_reference(path)


def test_a_firm_one_seed_verdict_the_reference_undecides_reads_inconclusive_seed(tmp_path):
    one = seed_run(0.6, np.linspace(0.56, 0.64, 40))
    trained = claim(ABOVE, trained="probes")
    # no reference read: the table as before, no column
    assert "seed_reference" not in scorecard([trained], one).columns
    wide = _reference(tmp_path, [["c.x", "", "value", 0.05, 5, "m", "0123456789"]])
    row = scorecard([trained], Run(one.tables, one.boots, reference=wide)).iloc[0]
    assert (row.verdict, row.interval) == (SEED, "[0.562, 0.638]")  # the bootstrap's own interval decides ...
    assert "widened by the seed reference's between-seed SD, [0.456, 0.744] (SD 0.05, 5 seeds)" in row.reason
    assert row.seed_reference == "between-seed SD 0.05 (5 seeds; m @ 0123456)"
    # ... its p is the widened interval's: t = 0.1 / 0.055453 = 1.8033 on 4.7945 df
    assert row.p_value == pytest.approx(2 * stats.t.sf(0.1 / 0.055453, 4.7945), rel=1e-3)
    narrow = _reference(tmp_path, [["c.x", "", "value", 0.01, 5, "m", "0123456789"]])
    assert scorecard([trained], Run(one.tables, one.boots, reference=narrow)).iloc[0].verdict == "holds"
    # a claim the reference does not cover: judged as without it, and said so
    other = _reference(tmp_path, [["c.y", "", "value", 0.05, 5, "m", "0123456789"]])
    row = scorecard([trained], Run(one.tables, one.boots, reference=other)).iloc[0]
    assert row.verdict == "holds" and row.seed_reference.startswith("not in the reference")
    # a claim on no training is never widened
    row = scorecard([claim(ABOVE)], Run(one.tables, one.boots, reference=wide)).iloc[0]
    assert (row.verdict, row.seed_reference) == ("holds", "")


def test_the_reference_is_read_per_level(tmp_path):
    """Level A has a wide SD (undecided once widened), level B none: the claim no longer holds firmly,
    and holds on 1 of its 2 levels (B: bootstrap p 2 / 401, within Holm's 2.5%; A: the widened p 0.12)."""
    per = {**ABOVE, "per": "g"}
    reps = np.linspace(0.56, 0.64, 400)
    boot = pd.DataFrame({"replicate": np.tile(range(400), 2), "g": ["A"] * 400 + ["B"] * 400, "v": np.r_[reps, reps]})
    run = Run({"t": pd.DataFrame({"g": ["A", "B"], "v": [0.6, 0.6]})}, {"t": boot.assign(resampled_units=np.inf)})
    ref = _reference(tmp_path, [["c.x", "A", "value", 0.05, 5, "m", "abc"]])
    row = scorecard([claim(per, trained="probes")], Run(run.tables, run.boots, reference=ref)).iloc[0]
    assert row.verdict == SEED and "A: [0.456, 0.744] (SD 0.05, 5 seeds)" in row.reason and row.levels == "1 of 2"


@pytest.mark.parametrize(
    "rows, message",
    [
        ([["c.x", "", "value", -0.1, 5, "m", "c"]], r"row 2 \(c.x  value\): sd '-0.1' must be a number >= 0"),
        ([["c.x", "", "value", 0.1, 1, "m", "c"]], r"seeds '1' a whole number >= 2"),
    ],
)
def test_a_bad_reference_fails_naming_the_file_and_row(tmp_path, rows, message):
    with pytest.raises(ValueError, match=message):
        _reference(tmp_path, rows)
    path = tmp_path / "bad.csv"
    path.write_text("id,sd\nc.x,0.1\n")
    with pytest.raises(ValueError, match=r"bad.csv: no column group, quantity, seeds, model, commit"):
        read_seed_reference(path)
    assert read_seed_reference(tmp_path / "absent.csv") is None
