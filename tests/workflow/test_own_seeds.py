"""Training seeds in the calibration on the project's own data (tools/measure/own_seeds.py): a family's
run pooled over its seeds, each seed's quantity placed by hand, and the size and power of the engine's
random effect on seeded per-unit data whose truth is known."""

import numpy as np
import pandas as pd
import pytest

from analysis.scorecard.seed_reference import SeedReference
from analysis.scorecard.values import REPLICATE
from tools.measure.own_calibration import calibrate_family
from tools.measure.own_families import Family
from tools.measure.own_seeds import family_run, moved_to, placed, seed_offsets
from tools.measure.own_shifts import NotCovered, quantity_of

ABOVE_HALF = {"value": {"table": "t", "column": "accuracy", "where": {"system": "head"}}, "op": ">", "threshold": 0.5}


def _seeded(rates, n=200, seed=0):
    """One family of ``len(rates)`` training seeds on the same ``n`` units: seed s's unit i is correct
    with probability rates[s] (its accuracy table: the weighted mean)."""
    rng = np.random.default_rng(seed)
    xs = [rng.binomial(1, r, n).astype(float) for r in rates]

    def maker(x):
        return lambda w: {
            "t": pd.DataFrame({REPLICATE: np.arange(len(w)), "system": "head", "accuracy": w @ x / w.sum(1)})
        }

    makes = [maker(x) for x in xs]
    return Family("t", np.arange(n), makes[0], ("t",), tuple(makes[1:]), "classifiers"), xs


def test_a_family_run_pools_every_seed_and_each_seed_is_placed_by_hand():
    family, xs = _seeded([0.6, 0.7, 0.8], n=10)
    boot = np.random.default_rng(0).integers(0, 3, (50, 10)).astype(float)
    run = family_run(family, np.ones((1, 10)), boot)
    assert len(run.trainings) == 2 and run.seeds == {"t": 3}
    claim = {"id": "t.c", "check": ABOVE_HALF, "trained": "classifiers"}
    where = placed(claim, run, [None], None)
    assert where.seeds[0] == pytest.approx([x.mean() - 0.5 for x in xs])
    within = np.mean([boot @ x / boot.sum(1) for x in xs], axis=0).std(ddof=1)  # the seed mean's bootstrap SD
    sd = np.std([x.mean() for x in xs], ddof=1)
    assert where.se[0] == pytest.approx(np.sqrt(sd**2 / 3 + within**2))
    assert where.seed_sd[0] == pytest.approx(sd) and where.sd_from == "the run's seeds"
    # a committed reference row is read instead of the run's own spread
    ref = SeedReference("r", {"t.c": {"": {"value": (0.05, 5)}}})
    assert placed(claim, run, [None], ref).seed_sd[0] == 0.05


def test_each_seed_lands_at_the_target_plus_its_offset():
    family, xs = _seeded([0.6, 0.7, 0.8], n=10)
    run = family_run(family, np.ones((1, 10)), np.ones((5, 10)))
    claim = {"id": "t.c", "check": ABOVE_HALF, "trained": "classifiers"}
    where = placed(claim, run, [None], None)
    offsets = np.array([[0.01, -0.02, 0.03]])
    _, moved_run = moved_to(claim, quantity_of(ABOVE_HALF), run, [None], where, np.array([0.1]), offsets)
    seeds = [moved_run, *moved_run.trainings]
    assert [float(r.tables["t"]["accuracy"].iloc[0]) for r in seeds] == pytest.approx([0.61, 0.58, 0.63])
    assert [float(r.boots["t"]["accuracy"].iloc[0]) for r in seeds] == pytest.approx([0.61, 0.58, 0.63])


def test_offsets_are_zero_without_a_seed_spread_and_drawn_with_it():
    family, _ = _seeded([0.6], n=10)
    run = family_run(family, np.ones((1, 10)), np.ones((5, 10)))
    untrained = placed({"id": "t.c", "check": ABOVE_HALF}, run, [None], None)
    assert untrained.seed_sd[0] == 0 and not seed_offsets(untrained, np.random.default_rng(0)).any()
    with pytest.raises(NotCovered, match="no seed reference row"):
        placed({"id": "t.c", "check": ABOVE_HALF, "trained": "classifiers"}, run, [None], None)
    ref = SeedReference("r", {"t.c": {"": {"value": (0.2, 5)}}})
    one = placed({"id": "t.c", "check": ABOVE_HALF, "trained": "classifiers"}, run, [None], ref)
    draws = np.array([seed_offsets(one, np.random.default_rng(s))[0, 0] for s in range(400)])
    assert draws.std() == pytest.approx(0.2, rel=0.15)


def test_three_seeds_whose_spread_dominates_keep_the_size_and_gain_power():
    """The issue's shape on per-unit data: 3 seeds whose between-seed SD is 5x the bootstrap SD, the
    seed mean's truth on the threshold: the engine's random effect errs at most ~2.5% each way."""
    family, _ = _seeded([0.6, 0.7, 0.8], n=200, seed=1)
    boot_sd = np.sqrt(0.7 * 0.3 / 200)
    ref = SeedReference("r", {"t.c": {"": {"value": (5 * boot_sd, 5)}}})
    claim = {"id": "t.c", "check": ABOVE_HALF, "trained": "classifiers"}
    row = calibrate_family(family, [claim], datasets=240, resamples=200, seed=2, grid=(0, 1, 4), reference=ref).iloc[0]
    bound = 0.025 + 3 * np.sqrt(0.025 * 0.975 / 240)
    assert row.wrong_holds <= bound and row.wrong_does_not_hold <= bound
    assert row.seeds == 3 and row.seed_sd_from == "seed reference"
    assert row.power_holds_1se < row.power_holds_4se and row.power_does_not_hold_1se < row.power_does_not_hold_4se


def test_an_instance_family_pairs_every_training_seed_by_instance(tmp_path):
    from tools.measure.own_families import instance_family

    results = tmp_path / "results"
    for run, x in (("m", [1.0, 2.0, 3.0]), ("m--training-1", [10.0, 20.0, 30.0])):
        (results / run / "tables").mkdir(parents=True)
        pd.DataFrame({"id": [3, 1, 2], "x": x}).to_csv(results / run / "tables" / "a.csv", index=False)
    (results / "m--training-2" / "tables").mkdir(parents=True)  # a training of another family: no a.csv

    def build(d, units, weights):  # each unit's x, weighted: a mean over the drawn instances
        x = d["a"].set_index("id").loc[units, "x"].to_numpy()
        return {"t": pd.DataFrame({REPLICATE: np.arange(len(weights)), "v": weights @ x / weights.sum(1)})}

    family = instance_family("f", results / "m" / "tables", ("a",), build, ("t",), "classifiers")
    assert len(family.trainings) == 1 and family.trained == "classifiers" and family.clusters.tolist() == [0, 1, 2]
    w = np.array([[1.0, 0.0, 2.0]])  # instances 1, 2, 3 (sorted ids) drawn 1, 0 and 2 times
    assert family.make(w)["t"]["v"].iloc[0] == pytest.approx((2.0 + 2 * 1.0) / 3)  # id 1 -> 2.0, id 3 -> 1.0
    assert family.trainings[0](w)["t"]["v"].iloc[0] == pytest.approx((20.0 + 2 * 10.0) / 3)
    (results / "m--training-1" / "tables" / "b.csv").write_text("id,x\n1,0\n")
    with pytest.raises(SystemExit, match=r"m/tables/b.csv"):
        instance_family("f", results / "m" / "tables", ("a", "b"), build, ("t",), "classifiers")


def test_a_computed_difference_moves_by_its_leading_column():
    from tools.measure.own_shifts import leading_column, shifted

    frames = {"t": pd.DataFrame({"e": ["x", "y"], "a": [0.5, 0.25], "b": [0.125, 0.0]})}
    spec = {"table": "t", "column": "a - b", "where": {"e": "y"}}
    out = shifted(frames, spec, None, [None], [0.25])["t"]
    assert out.eval("a - b").tolist() == [0.375, 0.5]  # only the row it reads, by as much
    assert leading_column("a", ["a"]) == "a"
    with pytest.raises(NotCovered, match="computed column 'b \\* 2'"):
        leading_column("b * 2", ["a", "b"])
