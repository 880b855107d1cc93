"""Replicate tables of the explanation rules (analysis/explanation/replicates.py): all weights 1
give the point summaries; a hand-computed resample of three instances; every replicate equals the
point summary of the resampled instances."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.explanation.erasure import ORDERS, erasure_summary
from analysis.explanation.replicates import (
    ADVERSARIAL,
    ERASURE_PAIRED,
    PERMUTATION,
    RANK_AGREEMENT,
    erasure_replicates,
    instance_weights,
    median_boot,
    median_replicates,
    weighted_mean,
    weighted_median,
)
from analysis.shared.bootstrap import unit_weights

CLAIM_COLUMNS = ["flip_rate_top", "share_jsd_top_larger", "median_fraction_removed", *ERASURE_PAIRED]


def erasure_rows(n: int, encoders=("none", "lstm"), draws: int = 2, seed: int = 0):
    """Synthetic single and set rows shaped like run_erasure's (ids 0..n-1; some never flip)."""
    rng = np.random.default_rng(seed)
    single, sets = [], []
    for enc in encoders:
        for i in range(n):
            jt, jr = rng.random(2) * 0.1
            single.append(dict(encoder=enc, id=i, flip_top=rng.random() < 0.4, flip_random=rng.random() < 0.2))
            single[-1].update(jsd_top=jt, jsd_random=jr, jsd_difference=jt - jr)
            n_items = int(rng.integers(2, 9))
            for order, draw in [(o, 0) for o in ORDERS] + [("random", d) for d in range(1, draws)]:
                k = int(rng.integers(1, n_items + 2))  # n_items + 1: never flips
                row = dict(encoder=enc, id=i, order=order, draw=draw, n_items=n_items, flipped=k <= n_items)
                row.update(n_removed=k if k <= n_items else np.nan, mass_removed=rng.random())
                sets.append({**row, "fraction_removed": row["n_removed"] / n_items})
    return pd.DataFrame(single), pd.DataFrame(sets)


def test_weighted_mean_and_median_by_hand():
    x = [0.1, 0.5, 0.3]
    w = np.array([[2, 0, 1], [0, 3, 0], [1, 1, 1], [1, 0, 1], [0, 0, 0]])
    # repeated values: [.1 .1 .3], [.5 .5 .5], [.1 .3 .5], [.1 .3], none
    assert weighted_median(x, w)[:4] == pytest.approx([0.1, 0.5, 0.3, 0.2])
    assert np.isnan(weighted_median(x, w)[4])
    assert weighted_mean(x, w)[:4] == pytest.approx([0.5 / 3, 0.5, 0.3, 0.2])
    # NaN left out, as pandas' median and mean do: [.1 .1 nan] -> .1; [nan nan nan] -> NaN
    y = [0.1, np.nan, 0.3]
    assert weighted_median(y, np.array([[2, 1, 0]]))[0] == pytest.approx(0.1)
    assert np.isnan(weighted_median(y, np.array([[0, 3, 0]]))[0])
    assert weighted_mean(y, np.array([[1, 1, 1]]))[0] == pytest.approx(0.2)


def test_erasure_replicate_by_hand():
    """Three instances, one encoder; replicate 0 draws instance 0 twice and instance 2 once."""
    single = pd.DataFrame(dict(encoder="lstm", id=[0, 1, 2], flip_top=[True, False, False], flip_random=False)).assign(
        jsd_top=[0.3, 0.1, 0.2], jsd_random=[0.1, 0.2, 0.3]
    )
    single["jsd_difference"] = single.jsd_top - single.jsd_random  # top larger: 0 only
    n_removed = {"attention": [2, 1, np.nan], "gradient": [1, 1, 3], "random": [np.nan, 2, 1]}
    sets = pd.DataFrame(
        [
            dict(encoder="lstm", id=i, order=o, draw=0, n_removed=k[i], flipped=k[i] == k[i], mass_removed=0.5)
            for o, k in n_removed.items()
            for i in range(3)
        ]
    )
    sets["fraction_removed"] = sets.n_removed / 4  # four items each
    units, weights = np.array([0, 1, 2]), np.array([[2, 0, 1], [1, 1, 1]])
    boot = erasure_replicates(single, sets, units, weights).set_index(["replicate", "order"])
    r0 = boot.loc[0]
    # instances drawn: 0, 0, 2. Flip of the top weight: 0 yes, 2 no -> 2/3; JSD top larger: 0 -> 2/3
    assert r0.flip_rate_top.tolist() == pytest.approx([2 / 3] * 3)
    assert r0.share_jsd_top_larger.tolist() == pytest.approx([2 / 3] * 3)
    # fractions removed: attention .5 .5 (never) -> .5; gradient .25 .25 .75 -> .25; random (never) (never) .25
    assert r0.median_fraction_removed.tolist() == pytest.approx([0.5, 0.25, 0.25])
    # vs attention (2, 2, never): gradient 1 1 3 -> all sooner; random never never 1 -> later, later, sooner
    assert r0.loc["gradient", ["vs_attention_sooner_share", "vs_attention_later_share"]].tolist() == [1, 0]
    assert r0.loc["random", "vs_attention_sooner_share"] == pytest.approx(1 / 3)
    assert r0.loc["random", "vs_attention_later_share"] == pytest.approx(2 / 3)
    assert r0.loc["attention", ERASURE_PAIRED].tolist() == [0, 0]
    # replicate 1 draws every instance once: the point summary
    point = erasure_summary(single, sets).set_index("order")[CLAIM_COLUMNS]
    pd.testing.assert_frame_equal(boot.loc[1][CLAIM_COLUMNS], point, check_names=False)


def test_erasure_weights_one_give_the_point_summary_exactly():
    single, sets = erasure_rows(12, draws=3)
    units = np.arange(12)
    boot = erasure_replicates(single, sets, units, np.ones((2, 12), dtype=int))
    point = erasure_summary(single, sets)[["encoder", "order", *CLAIM_COLUMNS]]
    for b in (0, 1):
        rep = boot[boot.replicate == b].drop(columns="replicate").reset_index(drop=True)
        pd.testing.assert_frame_equal(rep, point, check_exact=True)


def resampled(df: pd.DataFrame, w: np.ndarray) -> pd.DataFrame:
    """The rows of instances ``0..n-1`` repeated as drawn, each copy its own instance id."""
    copies = [df[df.id == i].assign(id=i * 1000 + c) for i, k in enumerate(w) for c in range(k)]
    return pd.concat(copies, ignore_index=True)


def test_every_erasure_replicate_is_the_summary_of_its_resample():
    single, sets = erasure_rows(9, draws=2, seed=1)
    units, weights = instance_weights(6, 3, single, sets)
    assert (units == np.arange(9)).all() and (weights == unit_weights(9, 6, 3)).all()
    boot = erasure_replicates(single, sets, units, weights)
    keys = ["encoder", "order"]
    for b, w in enumerate(weights):
        want = erasure_summary(resampled(single, w), resampled(sets, w))[keys + CLAIM_COLUMNS]
        got = boot[boot.replicate == b].drop(columns="replicate").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("spec", [PERMUTATION, ADVERSARIAL, RANK_AGREEMENT])
def test_median_replicates_of_the_per_instance_tables(spec):
    keys, columns = spec
    rng = np.random.default_rng(0)
    rows = [
        {"encoder": enc, "tolerance": tol, "id": i, **{c: rng.random() for c in columns}}
        for enc in ("none", "cnn", "lstm")
        for tol in (0.01, 0.05)
        for i in range(7)
        if "tolerance" in keys or tol == 0.01
    ]
    df = pd.DataFrame(rows)
    df.loc[3, columns[-1]] = np.nan  # an undefined tau: left out of the median
    units, weights = instance_weights(50, 0, df)
    boot = median_replicates(df, keys, columns, units, weights)
    assert len(boot) == 50 * df.groupby(keys).ngroups and list(boot.columns) == keys + columns + ["replicate"]
    # all weights 1: the claims' median over instances per group, exactly
    ones = median_replicates(df, keys, columns, units, np.ones((1, 7), dtype=int))
    point = df.groupby(keys, sort=False)[columns].median().reset_index()
    pd.testing.assert_frame_equal(ones.drop(columns="replicate"), point, check_exact=True)
    # each replicate: the median over its resampled instances (the same draws for every encoder)
    for b in (0, 17):
        want = resampled(df, weights[b]).groupby(keys, sort=False)[columns].median().reset_index()
        got = boot[boot.replicate == b].drop(columns="replicate").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    # what the rules write: the same table, with the instances each replicate drew
    written = median_boot(df, spec, 50, 0)
    pd.testing.assert_frame_equal(written.drop(columns="resampled_units"), boot, check_exact=True)
    assert (written["resampled_units"] == 7).all()


def test_staying_true_replicates_by_hand_and_at_weights_one():
    """Tutek & Snajder: the accuracy drop under permutation (a mean) and the median lone-token
    spread, per model, on each resample of the instances."""
    from analysis.explanation.replicates import (
        staying_true_permutation_replicates,
        staying_true_single_token_replicates,
    )
    from analysis.explanation.staying_true.attention_tests import permutation_summary, single_token_summary

    perm = pd.DataFrame(
        {
            "model": ["base"] * 3 + ["tying"] * 3,
            "id": [0, 1, 2] * 2,
            "median_output_change": [0.1, 0.2, 0.3] * 2,
            "flip_rate": [0.0] * 6,
            "correct": [True, True, False, True, False, True],
            "accuracy_under_permutation": [0.9, 0.5, 0.2, 0.6, 0.1, 1.0],
        }
    )
    units = np.array([0, 1, 2])
    # drops per instance: base 0.1, 0.5, -0.2; tying 0.4, -0.1, 0.0. Weights (2, 1, 0): base
    # (0.2 + 0.5) / 3 = 0.2333..., tying (0.8 - 0.1) / 3 = 0.2333...; weights (0, 0, 3): -0.2, 0.0
    boot = staying_true_permutation_replicates(perm, units, np.array([[2, 1, 0], [0, 0, 3]]))
    got = boot.set_index(["replicate", "model"])["accuracy_drop_under_permutation"]
    assert got.to_dict() == pytest.approx(
        {(0, "base"): 0.7 / 3, (0, "tying"): 0.7 / 3, (1, "base"): -0.2, (1, "tying"): 0.0}
    )
    ones = staying_true_permutation_replicates(perm, units, np.ones((1, 3), dtype=int))
    want = permutation_summary(perm)["accuracy_drop_under_permutation"].to_numpy()
    np.testing.assert_allclose(ones["accuracy_drop_under_permutation"].to_numpy(), want, rtol=1e-12)
    single = perm[["model", "id"]].assign(single_std=[0.3, 0.1, 0.2, 0.05, 0.4, 0.6], single_range=0.0)
    single = single.assign(tau_polarity=0.0, single_centre=0.5, tau_polarity_centred=0.0, tau_decision=0.0)
    # weights (2, 1, 0): base median of (0.3, 0.3, 0.1) = 0.3, tying of (0.05, 0.05, 0.4) = 0.05
    boot = staying_true_single_token_replicates(single, units, np.array([[2, 1, 0]]))
    assert boot.set_index("model")["median_single_std"].to_dict() == pytest.approx({"base": 0.3, "tying": 0.05})
    ones = staying_true_single_token_replicates(single, units, np.ones((1, 3), dtype=int))
    want = single_token_summary(single)["median_single_std"].to_numpy()
    np.testing.assert_array_equal(ones["median_single_std"].to_numpy(), want)


def test_staying_true_adversary_replicates_read_the_curve_of_the_resampled_means():
    from analysis.explanation.replicates import staying_true_adversary_replicates
    from analysis.explanation.staying_true.curves import equal_jsd_summary

    # two models x two weights x two instances
    inst = pd.DataFrame(
        {
            "model": ["base"] * 4 + ["tying"] * 4,
            "weight": [0.0, 0.0, 1.0, 1.0] * 2,
            "id": [0, 1] * 4,
            "jsd": [0.1, 0.3, 0.5, 0.7, 0.2, 0.2, 0.6, 0.8],
            "tvd": [0.1, 0.1, 0.2, 0.4, 0.1, 0.3, 0.5, 0.5],
        }
    )
    units = np.array([0, 1])
    boot = staying_true_adversary_replicates(inst, [0.5], units, np.array([[1, 1], [2, 0]]))
    got = boot.set_index(["replicate", "model"])["tvd_at_jsd_level"]
    # weights (1, 1): base curve (0.2, 0.1) -> (0.6, 0.3), at JSD 0.5: 0.1 + 0.75 x 0.2 = 0.25;
    # tying (0.2, 0.2) -> (0.7, 0.5), at 0.5: 0.2 + 0.6 x 0.3 = 0.38
    # weights (2, 0): instance 0 only: base (0.1, 0.1) -> (0.5, 0.2): 0.2; tying (0.2, 0.1) -> (0.6, 0.5): 0.4
    assert got.to_dict() == pytest.approx({(0, "base"): 0.25, (0, "tying"): 0.38, (1, "base"): 0.2, (1, "tying"): 0.4})
    # less each model's floor, its lambda = 0 adversary's TVD on the same resample: (1, 1) base 0.1,
    # tying (0.1 + 0.3) / 2 = 0.2; (2, 0): base 0.1, tying 0.1
    above = boot.set_index(["replicate", "model"])["tvd_above_floor"]
    assert above.to_dict() == pytest.approx(
        {(0, "base"): 0.15, (0, "tying"): 0.18, (1, "base"): 0.1, (1, "tying"): 0.3}
    )
    # all weights 1 and the level of the summary itself (None): the point summary
    ones = staying_true_adversary_replicates(inst, None, units, np.ones((1, 2), dtype=int))
    means = inst.groupby(["model", "weight"], sort=False)[["jsd", "tvd"]].mean().reset_index()
    point = equal_jsd_summary(means.rename(columns={"jsd": "mean_jsd", "tvd": "mean_tvd"}))
    np.testing.assert_allclose(ones["tvd_at_jsd_level"], point["tvd_at_jsd_level"], rtol=1e-12)
    np.testing.assert_allclose(ones["jsd_level"], point["jsd_level"], rtol=1e-12)


def test_a_median_test_writes_its_table_boot_table_and_device(tmp_path):
    """What permutation, adversarial and rank_agreement write through ``write_median_test``: the
    tables as write_table writes ``df`` and ``median_boot`` of the rule's bootstrap params."""
    import json
    from types import SimpleNamespace

    from analysis.explanation.setup import write_median_test
    from analysis.shared.rule_io import write_table

    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        [{"encoder": e, "id": i, "median_output_change": rng.random()} for e in ("cnn", "lstm") for i in range(5)]
    )
    out = {k: tmp_path / f"{k}.csv" for k in ("table", "boot")} | {"device": tmp_path / "device.json"}
    smk = SimpleNamespace(output=SimpleNamespace(**out), params=SimpleNamespace(bootstrap={"resamples": 20, "seed": 3}))
    write_median_test(smk, df, PERMUTATION, "cpu")
    write_table(df, tmp_path / "want_table.csv")
    write_table(median_boot(df, PERMUTATION, 20, 3), tmp_path / "want_boot.csv")
    assert out["table"].read_bytes() == (tmp_path / "want_table.csv").read_bytes()
    assert out["boot"].read_bytes() == (tmp_path / "want_boot.csv").read_bytes()
    assert len(pd.read_csv(out["boot"])) == 20 * 2
    assert json.loads(out["device"].read_text()) == {"device": "cpu"}
