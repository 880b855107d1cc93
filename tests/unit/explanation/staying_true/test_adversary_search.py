"""Where the adversary's curve is read (rule staying_true_adversary): the adversaries bracketing a JSD
level, how close they are and whether they converged (the summary's resolved), and the bisection on
the trade-off weight that looks for adversaries near each level, on tiny hand-made curves."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.explanation.staying_true import adversary_runs
from analysis.explanation.staying_true.adversary import AdversaryConfig
from analysis.explanation.staying_true.curves import (
    bracket_columns,
    bracketing,
    equal_jsd_summary,
    next_weight,
    weight_interval,
)
from analysis.explanation.staying_true.models import StayingTrueConfig


def curve(weights, jsd, tvd, converged=None):
    d = pd.DataFrame({"model": "m", "weight": weights, "mean_jsd": jsd, "mean_tvd": tvd})
    return d.assign(converged=converged if converged is not None else [True] * len(d))


def test_bracketing_adversaries_are_the_nearest_on_each_side():
    # (0.5, 0.4) is beaten by (0.6, 0.3) on the cheapest curve, but it is measured near 0.45 all the same
    jsd = [0.6, 0.1, 0.3, 0.5]
    assert bracketing(jsd, 0.2) == (1, 2)
    assert bracketing(jsd, 0.45) == (2, 3)
    assert bracketing(jsd, 0.3) == (2, 2)  # an adversary on the level brackets it on both sides
    assert bracketing(jsd, 0.05) == (None, 1) and bracketing(jsd, 0.65) == (0, None)


def test_bracket_columns_say_how_close_and_whether_converged():
    d = curve([0.0, 0.005, 0.01], [0.1, 0.28, 0.6], [0.1, 0.12, 0.2], converged=[True, True, False])
    near = bracket_columns(d, 0.3, max_gap=0.05)
    # below: 0.28 (weight 0.005), 0.02 away; above: 0.6 (weight 0.01), 0.3 away
    assert (near["jsd_below"], near["jsd_above"], near["weight_below"], near["weight_above"]) == (
        0.28,
        0.6,
        0.005,
        0.01,
    )
    assert near["bracket_gap"] == pytest.approx(0.3) and near["bracket_converged"] == 0 and near["resolved"] == 0
    # close on both sides but one did not converge: not resolved; both converged: resolved
    close = curve([0.0, 0.004, 0.005], [0.1, 0.28, 0.33], [0.1, 0.11, 0.12], converged=[True, True, False])
    assert bracket_columns(close, 0.3, 0.05)["bracket_gap"] == pytest.approx(0.03)
    assert bracket_columns(close, 0.3, 0.05)["resolved"] == 0
    assert bracket_columns(close.assign(converged=True), 0.3, 0.05)["resolved"] == 1
    assert bracket_columns(close.assign(converged=True), 0.3, 0.02)["resolved"] == 0  # 0.03 > 0.02
    # a level past the curve's end has no adversary above it: no gap, not resolved
    past = bracket_columns(d, 0.65, 0.05)
    assert math.isnan(past["jsd_above"]) and math.isnan(past["bracket_gap"]) and past["resolved"] == 0
    # without a converged column (the replicates' curves): not known, not resolved
    bare = bracket_columns(close.drop(columns="converged"), 0.3, 0.05)
    assert math.isnan(bare["bracket_converged"]) and bare["resolved"] == 0


def test_summary_carries_the_bracket_columns():
    d = curve([0.0, 0.004, 0.005, 0.01], [0.1, 0.28, 0.33, 0.6], [0.1, 0.11, 0.12, 0.2]).assign(
        levelled_off=True, epochs=10
    )
    s = equal_jsd_summary(d, levels=[0.3, 0.5], max_gap=0.05)
    assert s.resolved.tolist() == [1, 0] and s.bracket_jsd.eq(0.05).all()
    assert s.bracket_gap.tolist() == pytest.approx([0.03, 0.17])
    assert s.tvd_at_jsd_level.iloc[0] == pytest.approx(0.11 + 0.01 * 0.02 / 0.05)  # raw TVD
    assert s.tvd_above_floor.iloc[0] == pytest.approx(s.tvd_at_jsd_level.iloc[0] - 0.1)  # the robustness column


def test_weight_interval_follows_the_weights_not_the_jsd_order():
    # weight 0.0025 reached less JSD than weight 0 (an adversary far from converged)
    d = curve([0.0, 0.0025, 0.005, 0.01], [0.13, 0.10, 0.63, 0.68], [0.10, 0.09, 0.17, 0.2])
    assert weight_interval(d, 0.3) == (0.0025, 0.005)
    assert weight_interval(d, 0.7) is None  # no adversary reaches it
    assert weight_interval(d, 0.05) is None  # every adversary is past it
    # the next weight: the midpoint, while a bracketing adversary is farther than the gap
    assert next_weight(d, 0.3, 0.05) == pytest.approx(0.00375)
    assert next_weight(d, 0.66, 0.05) is None  # 0.63 and 0.68 are both within 0.05 of 0.66
    assert next_weight(d, 0.7, 0.05) is None


def fake_adversary(jsd_of):
    """An adversary_row that reads its JSD off ``jsd_of(weight)`` (TVD = JSD / 2), converged."""

    def row(target, weight, xs_train, xs_dev, cfg, st_cfg, init_embeddings):
        jsd = jsd_of(weight)
        per_instance = pd.DataFrame({"jsd": [jsd], "tvd": [jsd / 2], "flipped": [False]})
        return {"weight": weight, "mean_jsd": jsd, "mean_tvd": jsd / 2, "converged": True}, per_instance

    return row


def test_the_search_bisects_each_level_until_both_sides_are_close(monkeypatch):
    # JSD rises from 0.1 to 0.7 within lambda 0 .. 0.004 (a steep rise, as a tying model's)
    def rise(w):
        return 0.1 + 0.6 * (1 - np.exp(-w / 0.001))

    monkeypatch.setattr(adversary_runs, "adversary_row", fake_adversary(rise))
    cfg = AdversaryConfig(weights=(0.0, 0.005, 0.01), jsd_levels=(0.3, 0.5), bracket_jsd=0.05, search_steps=10)
    instances = []
    df = adversary_runs.run_adversary({"m": None}, [], [], cfg, StayingTrueConfig(), instances=instances)
    # level 0.3: the weights between 0 (JSD 0.1) and 0.005 (0.696) halved: 0.0025 (0.651), 0.00125
    # (0.528), 0.000625 (0.379), 0.0003125 (0.261), 0.00046875 (0.325): 0.261 and 0.325 are within
    # 0.05 of 0.3. Level 0.5: between 0.000625 (0.379) and 0.00125 (0.528): 0.0009375 (0.465)
    expected = [0.0025, 0.00125, 0.000625, 0.0003125, 0.00046875, 0.0009375]
    assert df[df.source == "search"].weight.tolist() == pytest.approx(sorted(expected))
    assert [round(rise(w), 3) for w in expected] == [0.651, 0.528, 0.379, 0.261, 0.325, 0.465]
    assert df.weight.is_monotonic_increasing and len(instances) == len(df)
    assert [f.weight.iloc[0] for f in instances] == df.weight.tolist()  # per-instance frames in the table's order
    s = equal_jsd_summary(df, cfg.jsd_levels, cfg.bracket_jsd)
    assert s.resolved.tolist() == [1, 1] and (s.bracket_gap <= 0.05).all()
    # at most search_steps per level; none at all with 0
    few = adversary_runs.run_adversary(
        {"m": None}, [], [], AdversaryConfig(**{**cfg.__dict__, "search_steps": 2}), None
    )
    assert (few.source == "search").sum() == 4
    none = adversary_runs.run_adversary(
        {"m": None}, [], [], AdversaryConfig(**{**cfg.__dict__, "search_steps": 0}), None
    )
    assert none.source.eq("grid").all() and none.weight.tolist() == [0.0, 0.005, 0.01]


def test_the_search_stops_where_the_curve_jumps_over_the_level(monkeypatch):
    # the JSD jumps from 0.1 to 0.65 at lambda 0.003: no adversary lands near 0.3, whatever the steps
    monkeypatch.setattr(adversary_runs, "adversary_row", fake_adversary(lambda w: 0.1 if w < 0.003 else 0.65))
    cfg = AdversaryConfig(weights=(0.0, 0.01), jsd_levels=(0.3,), bracket_jsd=0.05, search_steps=5)
    df = adversary_runs.run_adversary({"m": None}, [], [], cfg, None)
    assert (df.source == "search").sum() == 5  # it used its steps and stopped
    assert equal_jsd_summary(df, cfg.jsd_levels, cfg.bracket_jsd).resolved.tolist() == [0]
