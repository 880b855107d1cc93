"""No silent default in the engine (issue 43): each one that used to decide quietly now fails with
a message naming what to fix, or is stated explicitly (the per-level "u of n": test_multiplicity.py)."""

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from analysis.scorecard.claims import read_claims, scorecard
from analysis.scorecard.counts import headline
from analysis.scorecard.evaluate import INCONCLUSIVE, evaluate_claim
from analysis.scorecard.run import Run
from analysis.scorecard.trainings import pool_trainings

ABOVE = {"value": {"table": "t", "column": "v"}, "op": ">", "threshold": 0.5}
B = 199


def claim(check, cid="c.x", **kw):
    base = {"id": cid, "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {**base, "check": check, **kw}


def test_more_than_ten_seeds_read_t_not_z():
    """12 seeds alternating 0.5 / 0.7: mean 0.6, sd 0.1 sqrt(12/11) = 0.10445, se 0.030151; the half
    width is t(0.975, 11) = 2.20099 x se = 0.06636 (z would give 0.05910)."""
    assert stats.t.ppf(0.975, 11) == pytest.approx(2.20099, abs=1e-5)
    runs = [Run({"t": pd.DataFrame({"v": [v]})}) for v in [0.5, 0.7] * 6]
    row = scorecard([claim(ABOVE, trained="probes")], pool_trainings(runs)).iloc[0]
    assert row.interval == "[0.534, 0.666] (t, 12 seeds)"


def test_a_replicate_table_must_say_how_many_units_it_drew():
    tables = {"t": pd.DataFrame({"v": [0.8]})}
    bare = pd.DataFrame({"replicate": range(40), "v": 0.8})
    with pytest.raises(ValueError, match="replicate table t.boot.csv has no column resampled_units: rerun its rule"):
        evaluate_claim(claim(ABOVE), Run(tables, {"t": bare}))
    gaps = bare.assign(resampled_units=[14.0] * 39 + [np.nan])
    with pytest.raises(ValueError, match="t.boot.csv: column resampled_units has empty rows"):
        evaluate_claim(claim(ABOVE), Run(tables, {"t": gaps}))
    # said explicitly: inf reads as the plain percentile interval
    assert evaluate_claim(claim(ABOVE), Run(tables, {"t": bare.assign(resampled_units=np.inf)})).verdict == "holds"


def test_a_claim_on_maps_must_state_its_control_role(tmp_path):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [claim(ABOVE)]}))
    registry = {
        "t": {
            "rule": "r",
            "unit": "u",
            "cluster": None,
            "reads_maps": True,
            "finetuned_maps": False,
            "family": None,
            "replicates": True,
        }
    }
    with pytest.raises(
        ValueError, match=r"claims.yaml: claim c.x: it reads attention maps, so it needs a control role"
    ):
        read_claims(path, registry)
    path.write_text(yaml.safe_dump({"claims": [claim(ABOVE, control="learned")]}))
    assert read_claims(path, registry)[0]["control"] == "learned"
    # a claim made in code, not read from the file, is held to the same
    with pytest.raises(ValueError, match="claim c.x: it reads attention maps"):
        scorecard([claim(ABOVE, reads_maps=True)], Run({"t": pd.DataFrame({"v": [0.8]})}))


def scores(learnt):
    return pd.DataFrame(
        {
            "task": ["A", "B"],
            "metric": "accuracy",
            "finetuned": [0.8, 0.6],
            "majority": 0.5,
            "gain_ci95_low": [0.2, -0.1],
            "gain_ci95_high": [0.4, 0.2],
            "main": True,
            **({"learnt": learnt} if learnt is not None else {}),
        }
    )


def test_a_missing_learnt_is_no_learnt():
    tables = {"t": pd.DataFrame({"v": [0.8, 0.7], "task": ["A", "B"]})}
    c = claim({**ABOVE, "per": "task"}, learnt_tasks="per")
    with pytest.raises(ValueError, match="finetune_scores has no column learnt"):
        evaluate_claim(c, Run({**tables, "finetune_scores": scores(None)}))
    # read from a csv, an empty cell is NaN, and bool(NaN) is True: it must not read as learnt
    with pytest.raises(ValueError, match="finetune_scores: no learnt value for task B"):
        evaluate_claim(c, Run({**tables, "finetune_scores": scores([True, np.nan])}))
    out = evaluate_claim(c, Run({**tables, "finetune_scores": scores(["True", "False"])}))
    assert out.our_value == "A: 0.8" and "left out, not learnt: B" in out.reason


def test_an_orders_p_carries_its_bonferroni_divisor():
    """a > b > c with both pairs failing at the point (0.4, 0.5, 0.6); over 199 replicates a > b on 1,
    b > c on 3. The p of does not hold is Bonferroni over the 2 failing pairs: 2 x (1 + 1) / 200 =
    0.02 (not 0.01), two-sided 0.04; firm: a > b fails on 198 of 199 (99.5% >= 1 - 0.025 / 2)."""
    spec = lambda col: {"table": "t", "column": col}  # noqa: E731
    tables = {"t": pd.DataFrame({"a": [0.4], "b": [0.5], "c": [0.6]})}
    a, c = np.full(B, 0.4), np.full(B, 0.6)
    a[0], c[1:4] = 0.6, 0.4
    reps = pd.DataFrame({"replicate": range(B), "a": a, "b": 0.5, "c": c, "resampled_units": np.inf})
    out = evaluate_claim(claim({"greater": [spec("a"), spec("b"), spec("c")]}), Run(tables, {"t": reps}))
    assert out.verdict == "does not hold"
    assert out.judged.p_fails == pytest.approx(2 * 2 / 200) and out.p_value == pytest.approx(0.04)


def test_a_failing_order_over_seeds_is_bonferroni_too():
    """3 seeds; a - b = -0.135, -0.1, -0.065 (mean -0.1, sd 0.035): t = -0.1 / (0.035 / sqrt 3) = -4.949,
    one-sided p 0.0192 (t, 2 df). Alone it fails firmly (<= 0.025); with b - c failing too (-0.3, 0.1,
    -0.1), the Bonferroni p 2 x 0.0192 = 0.0385 does not decide it."""
    spec = lambda col: {"table": "t", "column": col}  # noqa: E731
    order = claim({"greater": [spec("a"), spec("b"), spec("c")]}, trained="probes")

    def judged(b_minus_c):
        runs = [
            Run({"t": pd.DataFrame({"a": [0.5 + d1], "b": [0.5], "c": [0.5 - d2]})})
            for d1, d2 in zip([-0.135, -0.1, -0.065], b_minus_c)
        ]
        return evaluate_claim(order, pool_trainings(runs))

    assert stats.t.cdf(-0.1 / (0.035 / np.sqrt(3)), 2) == pytest.approx(0.0192, abs=1e-4)
    assert judged([0.3, 0.31, 0.29]).verdict == "does not hold"  # b > c holds: one failing pair
    assert judged([-0.3, 0.1, -0.1]).verdict == INCONCLUSIVE


def test_verdicts_on_a_point_value_alone_are_counted_apart():
    tables = {"t": pd.DataFrame({"v": [0.8]}), "u": pd.DataFrame({"v": [0.8]})}
    boots = {"t": pd.DataFrame({"replicate": range(40), "v": 0.8, "resampled_units": np.inf})}
    u = {**ABOVE, "value": {"table": "u", "column": "v"}}
    card = scorecard([claim(ABOVE), claim(u, "c.y")], Run(tables, boots))
    assert card["basis"].tolist() == ["bootstrap", "point only"]
    assert headline(card) == "2 paper claims: 1 holds; on their point value alone (no interval): 1 holds"
