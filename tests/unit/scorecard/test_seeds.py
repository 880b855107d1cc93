"""Training seeds as a random effect (analysis/scorecard/seeds.py), on tiny inputs whose answers are
worked out by hand in the comments: the seed mean, its between-seed plus bootstrap variance, the
Welch-Satterthwaite df, the verdict never read from k of k seeds agreeing, and the seed reference."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.scorecard.claims import scorecard, scorecard_and_values
from analysis.scorecard.evaluate import INCONCLUSIVE, SEED, evaluate_claim
from analysis.scorecard.few_units import bounds_of
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


# 41 replicates 0.002 apart: their 2.5th and 97.5th percentiles are exactly the 2nd and the 40th
STEPS = np.linspace(-0.04, 0.04, 41)
Z = 1.959964  # t(0.975) with many units


def test_the_seed_mean_adds_the_between_seed_and_the_bootstrap_variance():
    # seed 1: 0.6, replicates 0.6 + STEPS; seed 2: 0.7, replicates 0.7 + STEPS (the same resamples).
    # the seed mean on each replicate: 0.65 + STEPS, its 95% interval [0.612, 0.688]: the bootstrap
    # variance on each side (0.038 / 1.959964)^2 = 0.00037590.
    # between: var(0.6, 0.7) = 0.005, / k = 0.0025; se = sqrt(0.0025 + 0.00037590) = 0.053627 on both
    # sides. The df reads the between term at its 80% upper bound, U = 0.0025 x 1 / chi2(0.2; 1) =
    # 0.0025 / 0.064185 = 0.038950, and the bootstrap's with infinite df:
    # df = (U + 0.00037590)^2 / (U^2 / 1) = 1.009651^2 = 1.01939
    reps = [pd.Series(0.6 + STEPS), pd.Series(0.7 + STEPS)]
    e = seed_mean([0.6, 0.7], reps)
    assert e.mean == pytest.approx(0.65) and stats.chi2.ppf(0.2, 1) == pytest.approx(0.064185, abs=1e-6)
    assert e.parts == pytest.approx(
        {"between": 0.0025, "within_below": 0.00037590, "within_above": 0.00037590}, rel=1e-4
    )
    (se, df), above = e.spread
    assert above == (se, df) and se == pytest.approx(0.053627, abs=1e-6) and df == pytest.approx(1.01939, abs=1e-5)
    half = stats.t.ppf(0.975, df) * se  # the df asserted above, unrounded
    assert e.bounds() == pytest.approx((0.65 - half, 0.65 + half))
    assert satterthwaite([(0.0025, 1), (0.001, 9)]) == pytest.approx(1.92576, abs=1e-4)  # the plain formula
    # no bootstrap: the plain t interval over the seeds (k - 1 df)
    assert seed_mean([0.6, 0.7], [None, None]).spread == ((pytest.approx(0.05), 1), (pytest.approx(0.05), 1))


def test_with_seeds_that_agree_the_interval_is_the_bootstraps_own():
    """Three seeds with the same value and skewed replicates (a long upper tail): no between-seed
    variance, so the interval is the replicates' own 95% interval, skew included; with 14 clusters the
    few-cluster widened one, read with t(0.975, 13) on each side."""
    skewed = pd.Series(0.6 + np.r_[np.linspace(-0.02, 0.0, 20), np.linspace(0.0, 0.1, 21)])
    e = seed_mean([0.6] * 3, [skewed] * 3)
    assert e.bounds() == pytest.approx(tuple(np.quantile(skewed, [0.025, 0.975])))
    e = seed_mean([0.6] * 3, [skewed] * 3, units=14)
    assert e.bounds() == pytest.approx(bounds_of(skewed, 14))
    assert e.spread[0][1] == pytest.approx(13) and e.spread[1][0] > 4 * e.spread[0][0]


def test_inputs_the_seeds_share_count_once():
    """Replicate b of every seed resamples the same units: the seed mean's bootstrap spread is that of
    their mean, 0.65 + STEPS (each side (0.038 / 1.959964)^2), not the seeds' own shrunk by averaging."""
    e = seed_mean([0.6, 0.7], [pd.Series(0.6 + STEPS), pd.Series(0.7 + STEPS)])
    assert e.parts["within_below"] == pytest.approx((0.038 / Z) ** 2)
    assert e.reps.tolist() == pytest.approx((0.65 + STEPS).tolist())


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
    """a > b on 2 seeds, a's replicates a + STEPS / 2 (the difference's interval half-width 0.019 on
    each side: bootstrap variance (0.019 / 1.959964)^2 = 0.000093975). The difference 0.3 and 0.5:
    between 0.02 / 2 = 0.01, se sqrt(0.010094) = 0.10047, df ((0.01 / 0.064185 + 0.000094) /
    (0.01 / 0.064185))^2 = 1.0012: 0.4 +- 12.67 x 0.10047, undecided. 0.39 and 0.41: between 0.0001,
    U = 0.0001 / 0.064185 = 0.001558, se sqrt(0.000193975) = 0.013927, df ((0.001558 + 0.000094) /
    0.001558)^2 = 1.1243: 0.4 +- 9.824 x 0.013927 = [0.263, 0.537]: holds."""
    order = {"greater": [{"table": "t", "column": "a"}, {"table": "t", "column": "b"}]}

    def run(a, b):
        reps = pd.DataFrame({"replicate": range(41), "a": a + STEPS / 2, "b": b, "resampled_units": np.inf})
        return Run({"t": pd.DataFrame({"a": [a], "b": [b]})}, {"t": reps})

    row = scorecard([claim(order, trained="probes")], pool_trainings([run(0.8, 0.5), run(0.9, 0.4)]))
    assert row.iloc[0].verdict == INCONCLUSIVE and row.iloc[0].our_value == "0.85 > 0.45 (means of 2 seeds)"
    row = scorecard([claim(order, trained="probes")], pool_trainings([run(0.8, 0.41), run(0.8, 0.39)]))
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
    assert [got["B", f"value_seed{s}"] for s in (1, 2, 3)] == [0.6, 0.7, 0.55] and got["A", "df_low"] == 2


def test_a_categorical_value_over_seeds_has_no_mean_and_is_never_firm():
    vertical = {"value": {"table": "t", "column": "label", "agg": "first"}, "op": "==", "threshold": "Vertical"}
    runs = [Run({"t": pd.DataFrame({"label": [x]})}) for x in ("Vertical", "Vertical", "Block")]
    row = scorecard([claim(vertical, trained="finetune")], pool_trainings(runs)).iloc[0]
    assert (row.verdict, row.our_value) == (INCONCLUSIVE, "Vertical (the most common of 3 seeds)")
    assert row.interval == "none (a categorical value over 3 seeds has no mean)"


def test_one_seed_widened_by_the_reference():
    """One seed: 0.6, replicates 0.6 + STEPS (bootstrap variance (0.038 / 1.959964)^2 = 0.00037590 a
    side). With a between-seed SD of 0.05 over 5 seeds: se = sqrt(0.0025 + 0.00037590) = 0.053627; the
    df reads 0.0025 at its 80% upper bound, U = 0.0025 x 4 / chi2(0.2; 4) = 0.01 / 1.648777 =
    0.0060651: df = 4 ((U + 0.00037590) / U)^2 = 4.5112, half-width t(0.975, 4.51) x se = 2.6567 x
    0.053627 = 0.14247 -> [0.458, 0.742]: does not decide > 0.5. SD 0.01: U = 0.0004 / 1.648777 =
    0.00024260, df = 4 ((U + 0.00037590) / U)^2 = 25.998, se 0.021815, half-width 2.0555 x 0.021815 =
    0.04484 -> [0.555, 0.645]: decides. SD 0: the bootstrap's own [0.562, 0.638]."""
    reps = pd.Series(0.6 + STEPS)
    e = widened(0.6, reps, np.inf, 0.05, 5)
    assert e.spread[0][0] == pytest.approx(0.053627, abs=1e-6) and e.spread[0][1] == pytest.approx(4.5112, abs=1e-4)
    assert e.bounds() == pytest.approx((0.45753, 0.74247), abs=1e-5) and e.reference == (0.05, 5)
    assert widened(0.6, reps, np.inf, 0.01, 5).bounds() == pytest.approx((0.55516, 0.64484), abs=1e-5)
    assert widened(0.6, reps, np.inf, 0.0, 5).bounds() == pytest.approx((0.562, 0.638))


def _reference(tmp_path, rows):
    path = tmp_path / "seed_reference.csv"
    cols = ["id", "group", "quantity", "sd", "seeds", "model", "commit"]
    pd.DataFrame(rows, columns=cols).to_csv(path, index=False)
    return read_seed_reference(path)


def test_a_firm_one_seed_verdict_the_reference_undecides_reads_inconclusive_seed(tmp_path):
    one = seed_run(0.6, 0.6 + STEPS)
    trained = claim(ABOVE, trained="probes")
    # no reference read: the table as before, no column
    assert "seed_reference" not in scorecard([trained], one).columns
    wide = _reference(tmp_path, [["c.x", "", "value", 0.05, 5, "m", "0123456789"]])
    row = scorecard([trained], Run(one.tables, one.boots, reference=wide)).iloc[0]
    assert (row.verdict, row.interval) == (SEED, "[0.562, 0.638]")  # the bootstrap's own interval decides ...
    assert "widened by the seed reference's between-seed SD, [0.458, 0.742] (SD 0.05, 5 seeds)" in row.reason
    assert row.seed_reference == "between-seed SD 0.05 (5 seeds; m @ 0123456)"
    # ... its p is the widened interval's: t = 0.1 / 0.053627 = 1.8647 on 4.5112 df
    assert row.p_value == pytest.approx(2 * stats.t.sf(0.1 / 0.053627, 4.5112), rel=1e-3)
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
    and holds on 1 of its 2 levels (B: bootstrap p 2 / 402, within Holm's 2.5%; A: the widened p 0.13)."""
    per = {**ABOVE, "per": "g"}
    reps = np.linspace(0.56, 0.64, 401)  # percentiles 0.562 and 0.638, as 0.6 + STEPS
    boot = pd.DataFrame({"replicate": np.tile(range(401), 2), "g": ["A"] * 401 + ["B"] * 401, "v": np.r_[reps, reps]})
    run = Run({"t": pd.DataFrame({"g": ["A", "B"], "v": [0.6, 0.6]})}, {"t": boot.assign(resampled_units=np.inf)})
    ref = _reference(tmp_path, [["c.x", "A", "value", 0.05, 5, "m", "abc"]])
    row = scorecard([claim(per, trained="probes")], Run(run.tables, run.boots, reference=ref)).iloc[0]
    assert row.verdict == SEED and "A: [0.458, 0.742] (SD 0.05, 5 seeds)" in row.reason and row.levels == "1 of 2"


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


def test_a_basic_interval_reflects_each_seeds_replicates():
    """interval: basic over seeds: each seed's replicates reflected about its own value (2 x point -
    replicate), so replicates leaning above the point (an in-sample max's bias) pull the interval down."""
    above = {**ABOVE, "interval": "basic"}
    runs = [seed_run(v, v + 0.05 + STEPS) for v in (0.6, 0.6)]  # every replicate 0.05 above its point
    plain = evaluate_claim(claim(ABOVE, trained="probes"), pool_trainings(runs)).judged.bounds[0]
    reflected = evaluate_claim(claim(above, trained="probes"), pool_trainings(runs)).judged.bounds[0]
    # replicates 0.65 + STEPS: interval [0.612, 0.688] read from 0.6; reflected 0.55 - STEPS: [0.512, 0.588]
    assert plain == pytest.approx((0.6 - 0.0, 0.688)) and reflected == pytest.approx((0.512, 0.6))
