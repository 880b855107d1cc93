"""How sure a verdict is, on hand-made tables: the paired random-init control by role, evidence of
absence, orders and per-level claims with a firm failure, undefined replicates, the learnt-task mark,
Benjamini-Hochberg across claims."""

import numpy as np
import pandas as pd
import pytest

from analysis.scorecard.claims import benjamini_hochberg, scorecard
from analysis.scorecard.control import paired_difference, with_control
from analysis.scorecard.evaluate import ALSO_RANDOM, INCONCLUSIVE, evaluate_claim
from analysis.scorecard.run import Run
from analysis.scorecard.wording import difference_text, reason_text


def claim(check, **kw):
    base = {"id": "c.x", "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {**base, "check": check, **kw}


def boot(values, **columns):
    # resampled_units inf: read as the plain percentile interval (a table must say how many units it drew)
    return pd.DataFrame({"replicate": range(len(values)), "v": values, "resampled_units": np.inf, **columns})


ABOVE = {"value": {"table": "t", "column": "v"}, "op": ">", "threshold": 0.5}


def run(point, reps):
    return {"t": pd.DataFrame({"v": [point]})}, {"t": boot(reps)}


@pytest.mark.parametrize(
    "role, control_reps, verdict",
    [
        # model 0.8 (replicates 0.76..0.84), control 0.6 (0.56..0.64): the model is firmly further above
        # 0.5 on every replicate (difference 0.2): learned support
        ("learned", np.linspace(0.56, 0.64, 40), "holds"),
        # control 0.8 too: the difference (0 on every replicate) is not firmly above 0: no support
        ("learned", np.linspace(0.76, 0.84, 40), ALSO_RANDOM),
        # a claim of absence stands where the model has firmly more of the structure than the control
        # (control 0.9: 0.1 further on the claim's side on every replicate), still too little
        ("absence", np.linspace(0.86, 0.94, 40), "holds"),
        # ... and where it has no more than a random network, the absence is a random network's too
        ("absence", np.linspace(0.76, 0.84, 40), ALSO_RANDOM),
        # descriptive: demoted when the control holds; kept when the control firmly fails
        ("descriptive", np.linspace(0.76, 0.84, 40), ALSO_RANDOM),
        ("descriptive", np.linspace(0.26, 0.34, 40), "holds"),
    ],
)
def test_the_control_is_a_paired_difference_by_role(role, control_reps, verdict):
    tables, boots = run(0.8, np.linspace(0.76, 0.84, 40))
    control_tables, control_boots = run(float(np.mean(control_reps)), control_reps)
    c = claim(ABOVE, reads_maps=True, control=role)
    row = scorecard([c], Run(tables, boots), [Run(control_tables, control_boots)]).iloc[0]
    assert row.verdict == verdict and row.control_role == role
    assert row.control_difference.startswith(f"{0.8 - float(np.mean(control_reps)):+.3g} [")


def test_an_undecided_control_is_no_support_for_a_descriptive_claim():
    tables, boots = run(0.8, np.linspace(0.76, 0.84, 40))
    undecided = [0.4] * 20 + [0.6] * 20  # half the control's replicates hold
    control_tables, control_boots = run(0.6, undecided)
    c = claim(ABOVE, reads_maps=True, control="descriptive")
    row = scorecard([c], Run(tables, boots), [Run(control_tables, control_boots)]).iloc[0]
    assert (row.control_verdict, row.verdict) == (INCONCLUSIVE, ALSO_RANDOM)


def test_paired_difference_by_hand():
    tables, boots = run(0.8, [0.7, 0.8, 0.9, 0.8])
    model = evaluate_claim(claim(ABOVE), Run(tables, boots))
    tables, boots = run(0.6, [0.6, 0.5, 0.9, 0.6])
    control = evaluate_claim(claim(ABOVE), Run(tables, boots))
    # strengths (v - 0.5): model 0.2, 0.3, 0.4, 0.3; control 0.1, 0.0, 0.4, 0.1 -> differences 0.1, 0.3, 0, 0.2
    d = paired_difference(model, control)
    # 2.5th / 97.5th percentiles of (0, 0.1, 0.2, 0.3): 0 + 0.075 x 0.1 = 0.0075, 0.2 + 0.925 x 0.1 = 0.2925
    assert (d.point, d.low, d.high) == pytest.approx((0.2, 0.0075, 0.2925))
    assert difference_text(d).startswith("+0.2 [+0.0075, +0.29")
    assert d.firm is False  # 3 of 4 above 0 (75% < 97.5%)
    assert d.p == pytest.approx((1 + 1) / (1 + 4))  # one difference <= 0


def test_a_negative_needs_evidence_of_absence():
    """Failing to detect is no absence: "does not hold" only where the refutation holds."""
    tables = {"t": pd.DataFrame({"v": [0.3], "upper": [0.05]})}
    c = claim(
        ABOVE,
        refuted_if={"value": {"table": "t", "column": "upper"}, "op": "<", "threshold": 0.01, "reason": "n too small"},
    )
    out = evaluate_claim(c, Run(tables))
    assert out.verdict == INCONCLUSIVE and out.reason == "n too small (measured: 0.05)"
    tables["t"]["upper"] = 0.005
    assert evaluate_claim(c, Run(tables)).verdict == "does not hold"
    tables["t"]["v"] = 0.7  # a claim that holds needs no refutation
    assert evaluate_claim(c, Run(tables)).verdict == "holds"


def test_an_order_with_one_pair_firmly_reversed_does_not_hold():
    """a > b > c with a > b undecided and b < c on every replicate: the order firmly fails."""
    spec = lambda col: {"table": "t", "column": col}  # noqa: E731
    tables = {"t": pd.DataFrame({"a": [0.6], "b": [0.5], "c": [0.7]})}
    reps = pd.DataFrame({"replicate": range(40), "a": [0.45, 0.55] * 20, "b": [0.5] * 40, "c": [0.7] * 40}).assign(
        resampled_units=np.inf
    )
    out = evaluate_claim(claim({"greater": [spec("a"), spec("b"), spec("c")]}), Run(tables, {"t": reps}))
    assert out.verdict == "does not hold"
    # b > c undecided as well: no firm verdict either way
    reps["c"] = [0.45, 0.55] * 20
    assert (
        evaluate_claim(claim({"greater": [spec("a"), spec("b"), spec("c")]}), Run(tables, {"t": reps})).verdict
        == INCONCLUSIVE
    )


def test_per_level_failure_is_bonferroni_corrected():
    """Two levels; level b fails on 39 of 40 replicates (97.5%): firm alone, not at the Bonferroni
    level 1 - 0.025 / 2 = 98.75% a union over two levels needs."""
    tables = {"t": pd.DataFrame({"v": [0.8, 0.4], "task": ["a", "b"]})}
    reps = pd.DataFrame(
        {"replicate": list(range(40)) * 2, "task": ["a"] * 40 + ["b"] * 40, "v": [0.8] * 40 + [0.4] * 39 + [0.6]}
    ).assign(resampled_units=np.inf)
    c = claim({**ABOVE, "per": "task"})
    assert evaluate_claim(c, Run(tables, {"t": reps})).verdict == INCONCLUSIVE
    reps.loc[79, "v"] = 0.4  # every replicate fails at b: firm
    assert evaluate_claim(c, Run(tables, {"t": reps})).verdict == "does not hold"


def test_undefined_replicates_are_never_firm():
    """A value missing on 2 of 40 resamples (5%) cannot be firm, whatever the others say."""
    tables = {"t": pd.DataFrame({"v": [0.8], "k": ["a"]})}
    reps = boot([0.8] * 40, k=["a"] * 38 + ["z", "z"])
    c = claim({"value": {"table": "t", "column": "v", "where": {"k": "a"}}, "op": ">", "threshold": 0.5})
    out = evaluate_claim(c, Run(tables, {"t": reps}))
    assert out.verdict == INCONCLUSIVE and "no value on 5% of the resamples" in out.reason


def test_not_learnt_tasks_are_judged_and_marked():
    scores = pd.DataFrame(
        {
            "task": ["A", "B"],
            "metric": ["accuracy"] * 2,
            "finetuned": [0.8, 0.5],
            "majority": [0.5, 0.5],
            "gain_ci95_low": [0.2, -0.1],
            "gain_ci95_high": [0.4, 0.1],
            "main": [True, True],
            "learnt": [True, False],
        }
    )
    tables = {"t": pd.DataFrame({"v": [0.8, 0.7], "task": ["A", "B"]}), "finetune_scores": scores}
    out = evaluate_claim(claim({**ABOVE, "per": "task"}, learnt_tasks="mark"), Run(tables))
    assert (out.verdict, out.our_value) == ("holds", "A: 0.8; B: 0.7 (not learnt)")
    out = evaluate_claim(claim({**ABOVE, "per": "task"}, learnt_tasks="per"), Run(tables))
    assert out.our_value == "A: 0.8" and "left out, not learnt: B" in out.reason


def test_benjamini_hochberg_by_hand():
    """p = 0.001, 0.01, 0.03, 0.04, 0.2 at q = 0.05 with m = 5: thresholds 0.01, 0.02, 0.03, 0.04, 0.05;
    the largest k with p_(k) <= k q / m is 4 (0.04 <= 0.04): the first four are discoveries."""
    p = pd.Series([0.03, 0.2, 0.001, np.nan, 0.04, 0.01])
    assert benjamini_hochberg(p).tolist() == [True, False, True, False, True, True]
    assert not benjamini_hochberg(pd.Series([0.5, 0.6])).any()


def test_one_level_firmly_refuted_refutes_an_every_level_claim():
    """Per task: A holds, B fails with its refutation holding (upper 0.005 < 0.01), C fails unrefuted:
    one refuted failing level is enough for "does not hold"."""
    tables = {"t": pd.DataFrame({"v": [0.8, 0.3, 0.3], "upper": [0.2, 0.005, 0.05], "task": ["A", "B", "C"]})}
    refute = {"per": "task", "value": {"table": "t", "column": "upper"}, "op": "<", "threshold": 0.01, "reason": "r"}
    c = claim({**ABOVE, "per": "task"}, refuted_if=refute)
    assert evaluate_claim(c, Run(tables)).verdict == "does not hold"
    tables["t"].loc[1, "upper"] = 0.05  # no failing level refuted: inconclusive, naming each failing level's bound
    out = evaluate_claim(c, Run(tables))
    assert (out.verdict, out.reason) == (INCONCLUSIVE, "r (measured: B: 0.05; C: 0.05)")


def test_few_clusters_ask_for_more_agreement_by_hand():
    from analysis.scorecard.few_units import few_unit_p, required_share

    # many units: the percentile bootstrap's own 97.5%
    assert required_share(0.025) == 0.975
    # 15 clusters: sqrt(15/14) = 1.03510 times t(0.975, 14) = 2.14479 gives 2.22006, and
    # Phi(2.22006) = 0.98679 (tables of the normal and t distributions)
    assert required_share(0.025, 15) == pytest.approx(0.98679, abs=2e-5)
    # 3 clusters: sqrt(3/2) * t(0.975, 2) = 1.22474 * 4.30265 = 5.26965: Phi ~ 1 - 7e-8
    assert required_share(0.025, 3) > 0.9999999
    assert required_share(0.025, 1) == np.inf  # one cluster: no interval, never firm
    # the p-value agrees with the share: p = 1 - 0.98679 maps to the uncorrected tail 0.025
    assert few_unit_p(1 - 0.98679, 15) == pytest.approx(0.025, abs=5e-5)
    assert few_unit_p(0.01, np.inf) == 0.01 and few_unit_p(0.01, 1) == 1.0


def test_a_table_resampled_by_few_clusters_gets_a_wider_interval():
    # 1,000 replicates, 98% of them above the threshold: firm from many units, not from 15 clusters
    reps = np.r_[np.full(20, 0.4), np.linspace(0.55, 0.9, 980)]
    tables, boots = run(0.7, reps)
    many = evaluate_claim(claim(ABOVE), Run(tables, boots))
    assert many.verdict == "holds" and many.interval == "[0.552, 0.891]"
    few = evaluate_claim(claim(ABOVE), Run(tables, {"t": boots["t"].assign(resampled_units=15)}))
    assert few.verdict == INCONCLUSIVE and few.units == 15
    # its interval: the 1.321st and 98.679th percentiles, the lower one among the 0.4 replicates
    assert few.interval.startswith("[0.4, ")
    # the two-sided p: twice (1 + 20) / 1001 = 0.042 from many units; corrected for 15 clusters above 0.05
    assert few.p_value > 0.05 > many.p_value == pytest.approx(2 * 21 / 1001)
    card = scorecard([claim(ABOVE)], Run(tables, {"t": boots["t"].assign(resampled_units=15)}))
    assert card.iloc[0].clusters == 15 and pd.isna(scorecard([claim(ABOVE)], Run(tables, boots)).iloc[0].clusters)


def test_the_basic_interval_reflects_the_replicates_about_the_point():
    # an in-sample max of 0.46 whose replicates lean up by 0.03 (0.47..0.51): the percentile interval
    # [0.471, 0.509] straddles 0.5; reflected, 2 x 0.46 - (0.47..0.51) = 0.41..0.45 lies below it
    reps = np.linspace(0.47, 0.51, 41)
    tables, boots = run(0.46, reps)
    below = {"value": {"table": "t", "column": "v"}, "op": "<", "threshold": 0.5}
    assert evaluate_claim(claim(below), Run(tables, boots)).verdict == INCONCLUSIVE
    got = evaluate_claim(claim({**below, "interval": "basic"}), Run(tables, boots))
    assert got.verdict == "holds" and got.interval == "[0.411, 0.449]"


def test_the_values_table_holds_our_values_numbers_at_full_precision():
    from analysis.scorecard.claims import scorecard_and_values

    per_level = pd.DataFrame({"task": ["A", "B"], "a": [0.71234, 0.6], "b": [0.5, 0.65432]})
    order = {"greater": [{"table": "t", "column": "a"}, {"table": "t", "column": "b"}], "per": "task"}
    card, values, _ = scorecard_and_values([claim(order)], Run({"t": per_level}))
    assert card.iloc[0].our_value == "A: 0.712 > 0.5; B: 0.6 vs 0.654"  # 3 digits in the text
    assert values.to_dict("records") == [
        {"id": "c.x", "group": "A", "position": 1, "value": 0.71234},
        {"id": "c.x", "group": "A", "position": 2, "value": 0.5},
        {"id": "c.x", "group": "B", "position": 1, "value": 0.6},
        {"id": "c.x", "group": "B", "position": 2, "value": 0.65432},
    ]


def test_a_widened_interval_says_how_many_clusters_in_every_view():
    from analysis.scorecard.counts import interval_note
    from analysis.scorecard.pages import scorecard_markdown, value_notes

    reps = np.linspace(0.6, 0.9, 400)
    tables, boots = run(0.75, reps)
    card = scorecard([claim(ABOVE)], Run(tables, {"t": boots["t"].assign(resampled_units=14)}))
    assert card.iloc[0].clusters == 14
    assert value_notes(card).iloc[0].endswith("(14 clusters)")
    assert "(14 clusters) | **holds** |" in scorecard_markdown(card, "m")
    assert "1 of them drew whole clusters" in interval_note(card)


@pytest.mark.parametrize("model, verdict", [(0.8, "holds"), (0.7, ALSO_RANDOM)])
def test_a_learned_claim_must_beat_the_spread_of_the_random_draws(model, verdict):
    # three draws 0.6, 0.62, 0.64 (strengths over the 0.5 threshold 0.10, 0.12, 0.14): mean 0.12,
    # sd 0.02; the bound for a new draw is 0.12 + t(0.975, 2) 4.303 x 0.02 x sqrt(1 + 1/3) = 0.2194.
    # The model 0.8 (strength 0.3) is beyond it; 0.7 (strength 0.2) is firmly further than every
    # draw, yet within what a new random draw could give
    tables, boots = run(model, np.linspace(model - 0.04, model + 0.04, 40))
    draws = [run(v, np.linspace(v - 0.01, v + 0.01, 40)) for v in (0.6, 0.62, 0.64)]
    c = claim(ABOVE, reads_maps=True, control="learned")
    row = scorecard([c], Run(tables, boots), [Run(draws[0][0], draws[0][1]), *(Run(t, b) for t, b in draws[1:])]).iloc[
        0
    ]
    assert (row.verdict, row.control_draws) == (verdict, 3)
    if verdict == ALSO_RANDOM:
        assert "within the spread of 3 random-init draws (model +0.2 vs a new draw's bound +0.219)" in row.reason


def test_fewer_than_ten_clusters_give_no_firm_verdict():
    # every replicate above the threshold: firm from 10 clusters on, never from 9
    tables, boots = run(0.8, np.linspace(0.7, 0.9, 200))
    nine = evaluate_claim(claim(ABOVE), Run(tables, {"t": boots["t"].assign(resampled_units=9)}))
    assert nine.verdict == INCONCLUSIVE and "9 clusters resampled: too few for a firm verdict" in nine.reason
    assert evaluate_claim(claim(ABOVE), Run(tables, {"t": boots["t"].assign(resampled_units=10)})).verdict == "holds"


def test_the_draws_are_read_alike_whichever_cannot_be_compared():
    # a draw whose premise fails (not applicable: no strength) is left out of the comparison,
    # first or second, and the comparable draw decides
    from analysis.scorecard.evaluate import Outcome

    tables, boots = run(0.8, np.linspace(0.76, 0.84, 40))
    model = evaluate_claim(claim(ABOVE), Run(tables, boots))

    def judged(point, reps):
        t, b = run(point, reps)
        return evaluate_claim(claim(ABOVE), Run(t, b))

    low = judged(0.6, np.linspace(0.59, 0.61, 40))
    none = Outcome("not applicable", reasons=["no sink"])
    for draws in ([none, low], [low, none]):
        assert with_control(model, draws, "learned")[0] == "holds"
    high = judged(0.8, np.linspace(0.76, 0.84, 40))
    for draws in ([none, high], [high, none]):
        verdict, _, why = with_control(model, draws, "learned")
        assert verdict == ALSO_RANDOM and reason_text(why).startswith("not firmly further than")


def test_units_drawn_one_by_one_read_with_their_degrees_of_freedom():
    from analysis.scorecard.few_units import required_share, units_of

    # 200 units: the share a firm verdict needs is Phi(sqrt(200/199) t(0.975, 199)) = 0.97597
    assert required_share(0.025, 200) == pytest.approx(0.97597, abs=1e-5)
    # 975 of 1,000 replicates above: firm from an unsaid number of units, not from 200; 976 are enough
    for above, plain, with_200 in [(975, "holds", INCONCLUSIVE), (976, "holds", "holds")]:
        reps = np.r_[np.full(1000 - above, 0.4), np.full(above, 0.6)]
        tables, boots = run(0.6, reps)
        assert evaluate_claim(claim(ABOVE), Run(tables, boots)).verdict == plain
        drawn = {"t": boots["t"].assign(resampled_units=200)}
        assert evaluate_claim(claim(ABOVE), Run(tables, drawn)).verdict == with_200
    # units drawn one by one (a claim the registry marks unclustered) show no cluster count
    tables, boots = run(0.6, np.r_[np.full(10, 0.4), np.full(990, 0.6)])
    card = scorecard([claim(ABOVE, clustered=False)], Run(tables, {"t": boots["t"].assign(resampled_units=200)}))
    assert card.iloc[0].verdict == "holds" and pd.isna(card.iloc[0].clusters)
    # the units of the rows a value reads: task A drew 200, task B 12
    per_task = pd.DataFrame({"task": ["A", "B"], "replicate": [0, 0], "v": [1, 2], "resampled_units": [200, 12]})
    spec = {"table": "t", "column": "v"}
    assert units_of({"t": per_task}, {**spec, "where": {"task": "A"}}) == 200
    assert units_of({"t": per_task}, spec) == 12  # the whole table: its fewest
    assert units_of({"t": per_task}, {**spec, "where": {"layer": 1}}) == 12  # a column it lacks: the whole table


def test_an_absence_claim_asks_the_model_to_have_more_than_every_draw():
    tables, boots = run(0.8, np.linspace(0.76, 0.84, 40))
    model = evaluate_claim(claim(ABOVE), Run(tables, boots))  # strength 0.3 on the claim's side

    def draws(*points):
        out = []
        for x in points:
            t, b = run(x, np.linspace(x - 0.04, x + 0.04, 40))  # the model's replicates + (x - 0.8)
            out.append(evaluate_claim(claim(ABOVE), Run(t, b)))
        return out

    # strengths 0.39, 0.4, 0.41: mean 0.4, sd 0.01, lower bound 0.4 - t(0.975, 2) 0.01 sqrt(4/3)
    # = 0.4 - 4.303 x 0.01155 = 0.3503; the model's 0.3 lies below it: it has more of the structure
    assert with_control(model, draws(0.89, 0.9, 0.91), "absence")[0] == "holds"
    # strengths 0.32, 0.4, 0.48: sd 0.08, bound 0.4 - 4.303 x 0.0924 = 0.0025; each draw is firmly
    # further on the claim's side than the model, but a new draw could have as much structure
    verdict, _, why = with_control(model, draws(0.82, 0.9, 0.98), "absence")
    assert verdict == ALSO_RANDOM and reason_text(why).startswith("within the spread of 3 random-init draws")
    # one draw with as little as the model (0.8): no more of the structure than a random network
    verdict, _, why = with_control(model, draws(0.9, 0.8), "absence")
    assert verdict == ALSO_RANDOM and reason_text(why).startswith("no more of the structure than random-init draw 2")


def test_one_draw_is_read_with_the_control_references_spread():
    """One control draw: without a reference no spread test; with the claim's between-draw SD from
    the reference (measured on 3 draws) the model must beat draw + t(0.975, 2) SD sqrt(2)."""
    tables, boots = run(0.8, np.linspace(0.76, 0.84, 40))
    model = evaluate_claim(claim(ABOVE), Run(tables, boots))  # strength 0.3

    def draw(x):
        t, b = run(x, np.linspace(x - 0.01, x + 0.01, 40))
        return evaluate_claim(claim(ABOVE), Run(t, b))

    one = [draw(0.6)]  # strength 0.1, firmly below the model's 0.3
    assert with_control(model, one, "learned")[0] == "holds"
    # SD 0.02: bound 0.1 + 4.303 x 0.02 x 1.414 = 0.2217 < 0.3: beyond it
    assert with_control(model, one, "learned", (0.02, 3))[0] == "holds"
    # SD 0.05: bound 0.1 + 4.303 x 0.05 x 1.414 = 0.4043 > 0.3: a new draw could reach the model
    verdict, _, why = with_control(model, one, "learned", (0.05, 3))
    assert verdict == ALSO_RANDOM
    assert reason_text(why) == (
        "within the spread of random-init draws (between-draw SD 0.05 from the control reference's 3 draws; "
        "model +0.3 vs a new draw's bound +0.404)"
    )
    # two draws of its own: the run's spread, never the reference's
    verdict, _, why = with_control(model, [draw(0.6), draw(0.61)], "learned", (0.05, 3))
    assert verdict == "holds"


def test_the_control_reference_file_is_checked_row_by_row(tmp_path):
    from analysis.scorecard.control_reference import read_control_reference

    assert read_control_reference(tmp_path / "none.csv") is None
    path = tmp_path / "ref.csv"
    path.write_text("id,sd,draws,model,commit\na.x,0.02,3,m,abcdef123\nb.y,0.1,3,m,abcdef123\n")
    ref = read_control_reference(path)
    assert ref.of("a.x") == (0.02, 3) and ref.of("c.z") is None and ref.source == "m @ abcdef1"
    path.write_text("id,sd,draws,model,commit\na.x,0.02,3,m,c\na.x,0.03,3,m,c\n")
    with pytest.raises(ValueError, match=r"ref.csv: row 3 \(a.x\)"):
        read_control_reference(path)
    path.write_text("id,sd,draws,model,commit\na.x,-1,3,m,c\n")
    with pytest.raises(ValueError, match="row 2"):
        read_control_reference(path)
    path.write_text("id,sd,model,commit\na.x,1,m,c\n")
    with pytest.raises(ValueError, match="no column draws"):
        read_control_reference(path)


def test_the_terms_carry_each_draws_strength_and_the_reference_is_read_on_one_draw():
    """The scorecard writes every control draw's strength (what tools/measure/control_reference.py
    reads), and a run with one draw reads the model's control reference."""
    from analysis.scorecard.claims import scorecard_and_values
    from analysis.scorecard.control_reference import ControlReference

    tables, boots = run(0.8, np.linspace(0.76, 0.84, 40))
    draws = [Run(*run(v, np.linspace(v - 0.01, v + 0.01, 40))) for v in (0.6, 0.62, 0.64)]
    c = claim(ABOVE, reads_maps=True, control="learned")
    terms = scorecard_and_values([c], Run(tables, boots), draws).terms.set_index("term")["value"]
    assert [terms[f"control_strength{d}"] for d in (1, 2, 3)] == pytest.approx([0.1, 0.12, 0.14])
    wide = ControlReference("ref.csv", {c["id"]: (0.05, 3)}, "m @ abc")  # bound 0.1 + 0.304 > the model's 0.3
    card = scorecard_and_values([c], Run(tables, boots, control_reference=wide), draws[:1]).card
    assert card.iloc[0].verdict == ALSO_RANDOM and "control reference's 3 draws" in card.iloc[0].reason
    assert scorecard_and_values([c], Run(tables, boots), draws[:1]).card.iloc[0].verdict == "holds"


def test_bias_corrected_replicates_by_hand():
    from analysis.scorecard.values import bias_corrected

    reps = pd.Series(np.arange(1.0, 11.0))
    # half the replicates below the point: z0 = 0, every replicate stays
    assert bias_corrected(reps, 5.5).tolist() == reps.tolist()
    # point 3: 2 below and one tie, 2.5 / 10 -> z0 = Phi^-1(0.25) = -0.6745; the 6th replicate
    # (u = 0.55) moves to quantile Phi(Phi^-1(0.55) - 1.349) = Phi(-1.2233) = 0.1106: the 2nd value
    moved = bias_corrected(reps, 3.0)
    assert moved[5] == 2.0 and moved.is_monotonic_increasing and moved.max() < 10
    # a claim reading bc: replicates that lean above the point no longer make it firm
    # 98% of the replicates above 0.5, but 12% below the point 0.51: z0 = Phi^-1(0.12) = -1.18, and
    # the replicates at u <= Phi(-2.054 + 2.37) = 0.62 move below 0.5
    tables, boots = run(0.51, np.linspace(0.498, 0.6, 400))
    assert evaluate_claim(claim(ABOVE), Run(tables, boots)).verdict == "holds"
    bc = {**ABOVE, "interval": "bc"}
    assert evaluate_claim(claim(bc), Run(tables, boots)).verdict == INCONCLUSIVE
