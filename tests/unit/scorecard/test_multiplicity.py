"""Multiplicity that decides: a two-sided p for every claim with an interval, Benjamini-Hochberg over
all of them deciding the firm verdicts, and per-level claims read as "holds on u of n" (Holm)."""

import numpy as np
import pandas as pd
import pytest

from analysis.scorecard.claims import scorecard
from analysis.scorecard.evaluate import INCONCLUSIVE, MULTIPLICITY, evaluate_claim
from analysis.scorecard.multiplicity import bh_adjusted, holm_rejections
from analysis.scorecard.run import Run

B = 199  # replicates: a p of (1 + against) / 200, doubled: (1 + against) / 100


def claim(cid, check, **kw):
    base = {"id": cid, "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {**base, "check": check, **kw}


def against(n, table="t"):
    """A table at 0.6 whose replicates fall below the 0.5 threshold ``n`` times of B."""
    reps = np.r_[np.full(n, 0.4), np.full(B - n, 0.6)]
    return {table: pd.DataFrame({"v": [0.6]})}, {
        table: pd.DataFrame({"replicate": range(B), "v": reps, "resampled_units": np.inf})
    }


def above(table):
    return {"value": {"table": table, "column": "v"}, "op": ">", "threshold": 0.5}


def test_the_p_is_two_sided_by_hand():
    # 3 of 199 replicates below the threshold: one-sided (1 + 3) / 200 = 0.02, two-sided 0.04;
    # the other direction (1 + 196) / 200 = 0.985
    tables, boots = against(3)
    out = evaluate_claim(claim("c.x", above("t")), Run(tables, boots))
    assert out.verdict == "holds" and out.p_value == pytest.approx(0.04)
    assert (out.judged.p_holds, out.judged.p_fails) == pytest.approx((0.02, 0.985))


def test_benjamini_hochberg_rejects_fewer_than_all_and_decides():
    """Five claims, four firm by their intervals (0, 0, 1 and 4 of 199 replicates against: two-sided
    p 0.01, 0.01, 0.02, 0.05), one undecided (100 against: p 1). BH at 5% with m = 5: thresholds
    0.01, 0.02, 0.03, 0.04, 0.05; the largest k with p_(k) <= k 0.05 / 5 is 3 (0.02 <= 0.03; 0.05 >
    0.04, 1 > 0.05): the claim at p 0.05, firm alone, is no discovery among five."""
    counts = {"c.a": 0, "c.b": 0, "c.c": 1, "c.d": 4, "c.e": 100}
    tables, boots = {}, {}
    for cid, n in counts.items():
        t, b = against(n, cid)
        tables |= t
        boots |= b
    card = scorecard([claim(cid, above(cid)) for cid in counts], Run(tables, boots)).set_index("id")
    assert card["p_value"].tolist() == pytest.approx([0.01, 0.01, 0.02, 0.05, 1.0])
    assert card["bh"].tolist() == [True, True, True, False, False]
    # q = min over j >= i of 5 p_(j) / j: 0.025, 0.025, 0.0333, 0.0625, 1
    assert card["q_value"].tolist() == pytest.approx([0.025, 0.025, 5 * 0.02 / 3, 5 * 0.05 / 4, 1.0])
    assert card.loc[["c.a", "c.b", "c.c"], "verdict"].eq("holds").all()
    assert card.loc["c.d", "verdict"] == MULTIPLICITY
    assert card.loc["c.d", "reason"].startswith("not a Benjamini-Hochberg discovery at 5% over the 5 claims")
    assert card.loc["c.e", "verdict"] == INCONCLUSIVE  # undecided by its interval: no change
    # alone, the claim at p 0.05 is a discovery (0.05 <= 0.05) and holds
    alone = scorecard([claim("c.d", above("c.d"))], Run(*against(4, "c.d"))).iloc[0]
    assert (alone.verdict, alone.bh) == ("holds", True)


def test_a_firm_interval_with_a_p_above_five_percent_is_inconclusive():
    """4 of 160 replicates against: 97.5% agree (firm by its interval), but the two-sided p is
    2 x (1 + 4) / 161 = 0.062 > 0.05: alone, with no multiplicity at all, it reads inconclusive."""
    reps = np.r_[np.full(4, 0.4), np.full(156, 0.6)]
    boots = {"t": pd.DataFrame({"replicate": range(160), "v": reps, "resampled_units": np.inf})}
    tables = {"t": pd.DataFrame({"v": [0.6]})}
    assert evaluate_claim(claim("c.x", above("t")), Run(tables, boots)).verdict == "holds"
    row = scorecard([claim("c.x", above("t"))], Run(tables, boots)).iloc[0]
    assert row.p_value == pytest.approx(10 / 161) and row.verdict == INCONCLUSIVE
    assert row.reason.startswith("its two-sided p 0.0621 is above 5%")


def test_extensions_are_a_family_of_their_own():
    """The claim at p 0.05 among the extensions alone is a discovery; among the paper's claims it is not."""
    counts = {"c.a": 0, "c.b": 0, "c.c": 1, "c.e": 100, "c.d": 4}
    tables, boots = {}, {}
    for cid, n in counts.items():
        t, b = against(n, cid)
        tables |= t
        boots |= b
    claims = [claim(cid, above(cid), **({"extension": True} if cid == "c.d" else {})) for cid in counts]
    card = scorecard(claims, Run(tables, boots)).set_index("id")
    assert card.loc["c.d", ["verdict", "q_value"]].tolist() == ["holds", pytest.approx(0.05)]


def test_bh_adjusted_and_holm_by_hand():
    p = pd.Series([0.03, 0.2, 0.001, np.nan, 0.04, 0.01])
    # sorted 0.001, 0.01, 0.03, 0.04, 0.2 (m = 5): 5 p / rank = 0.005, 0.025, 0.05, 0.05, 0.2
    assert bh_adjusted(p).tolist() == pytest.approx([0.05, 0.2, 0.005, np.nan, 0.05, 0.025], nan_ok=True)
    # Holm at 5% over 3: 0.01 <= 0.0167, 0.02 <= 0.025, 0.04 <= 0.05: all three; 0.03 > 0.025 stops at one
    assert holm_rejections([0.04, 0.01, 0.02]) == 3
    assert holm_rejections([0.01, 0.03, 0.04]) == 1
    assert holm_rejections([np.nan, 0.001]) == 1


def test_a_per_level_claim_says_on_how_many_of_its_levels_it_holds():
    """Levels A (0 of 199 against: two-sided p 0.01) and B (4 against: 0.05), and D named but absent:
    it holds firmly on both levels present: 2 of 3. With B undecided (10 against: 0.11), Holm over the
    3 named levels rejects 0.01 <= 0.05 / 3 and stops at 0.11: holds on 1 of 3."""
    point = pd.DataFrame({"task": ["A", "B"], "v": [0.6, 0.6]})
    reps = [np.full(B, 0.6), np.r_[np.full(4, 0.4), np.full(B - 4, 0.6)]]
    boot = pd.DataFrame({"replicate": list(range(B)) * 2, "task": ["A"] * B + ["B"] * B, "v": np.concatenate(reps)})
    boot["resampled_units"] = np.inf
    check = {"per": "task", "value": {"table": "t", "column": "v", "where": {"task": ["A", "B", "D"]}}}
    c = claim("c.x", {**check, "op": ">", "threshold": 0.5})
    row = scorecard([c], Run({"t": point}, {"t": boot})).iloc[0]
    assert (row.verdict, row.levels) == ("holds", "2 of 3")
    assert "no row: task = D" in row.reason
    boot.loc[B : B + 9, "v"] = 0.4  # B: 10 of 199 against
    row = scorecard([c], Run({"t": point}, {"t": boot})).iloc[0]
    assert (row.verdict, row.levels) == (INCONCLUSIVE, "1 of 3")
    # without replicates: the levels whose point holds
    row = scorecard([claim("c.x", {**check, "op": ">", "threshold": 0.5})], Run({"t": point})).iloc[0]
    assert (row.levels, row.basis) == ("2 of 3", "point only")


def test_a_bootstrap_p_carries_its_monte_carlo_error():
    from analysis.scorecard.multiplicity import p_monte_carlo_se

    # p = 0.1 = 2 x 0.05 of 1,000 replicates: 2 sqrt(0.05 x 0.95 / 1000) = sqrt(0.1 x 1.9 / 1000) = 0.013784
    assert p_monte_carlo_se(0.1, 1000) == pytest.approx(0.0137840, abs=1e-6)
    # four times the resamples halve it
    assert p_monte_carlo_se(0.1, 4000) == pytest.approx(p_monte_carlo_se(0.1, 1000) / 2)
    assert np.isnan(p_monte_carlo_se(np.nan, 1000)) and np.isnan(p_monte_carlo_se(0.1, 0))
