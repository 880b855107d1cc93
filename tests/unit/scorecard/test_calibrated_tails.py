"""The calibrated tails (analysis/scorecard/calibrated_tails.py): the tail found from null datasets'
p's by hand, the file read row by row, and a claim read at its tail (p scaled, firmness and the
reason), per level too."""

import re

import numpy as np
import pandas as pd
import pytest

from analysis.scorecard.calibrated_tails import (
    CalibratedTails,
    calibrated_tail,
    read_calibrated_tails,
    scaled_p,
)
from analysis.scorecard.evaluate import INCONCLUSIVE, evaluate_claim
from analysis.scorecard.run import Run
from analysis.scorecard.wording import reason_text


def test_the_tail_leaves_at_most_2_5_percent_of_null_datasets_firm():
    # 100 datasets: 2 may be firm; the 4 firm at 2.5% have p 0.001, 0.004, 0.01, 0.02
    assert calibrated_tail([0.02, 0.001, 0.01, 0.004], 100) == pytest.approx((0.004 + 0.01) / 2)
    # a tie at the third p: both tied go out (a tail below 0.004)
    assert calibrated_tail([0.001, 0.004, 0.004, 0.02], 100) == pytest.approx((0.001 + 0.004) / 2)
    assert calibrated_tail([0.003, 0.02], 100) == 0.025  # 2 firm of 100: the nominal level kept
    assert calibrated_tail([0.003], 10) == pytest.approx(0.0015)  # none of 10 may be: below the first
    assert scaled_p(0.01, 0.4) == pytest.approx(0.025) and scaled_p(0.6, 0.4) == 1.0


def test_the_file_is_read_and_checked_row_by_row(tmp_path):
    assert read_calibrated_tails(tmp_path / "none.csv") is None
    head = "id,direction,tail,datasets,resamples,model,commit\n"
    path = tmp_path / "tails.csv"
    path.write_text(head + "c.x,holds,0.005,1000,1000,m,abcdef0123\nc.x,does not hold,0.025,1000,1000,m,abcdef0123\n")
    tails = read_calibrated_tails(path)
    assert tails.scale("c.x") == pytest.approx((0.2, 1.0)) and tails.scale("other") == (1.0, 1.0)
    assert tails.source == "m @ abcdef0"
    for row, needle in [
        ("c.x,holds,0.03,1,1,m,c", "row 2 (c.x, 'holds'): tail '0.03'"),
        ("c.x,holds,0,1,1,m,c", "row 2 (c.x, 'holds'): tail '0'"),
        ("c.x,sideways,0.01,1,1,m,c", "direction one of holds, does not hold"),
    ]:
        path.write_text(head + row + "\n")
        with pytest.raises(ValueError, match=re.escape(f"{path}: {needle}" if needle.startswith("row") else needle)):
            read_calibrated_tails(path)
    path.write_text(head + "c.x,holds,0.01,1,1,m,c\nc.x,holds,0.02,1,1,m,c\n")
    with pytest.raises(ValueError, match="row 3"):  # a claim and direction twice
        read_calibrated_tails(path)
    path.write_text("id,tail\nc.x,0.01\n")
    with pytest.raises(ValueError, match="no column direction"):
        read_calibrated_tails(path)


def _claim(check):
    base = {"id": "c.x", "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {**base, "check": check}


ABOVE = {"value": {"table": "t", "column": "v"}, "op": ">", "threshold": 0.5}


def _run(reps, tails=None, levels=("a",)):
    """Every level's point 0.6 and the given 1,000 replicates (resampled_units inf: the plain percentile)."""
    point = pd.DataFrame({"g": list(levels), "v": 0.6})
    boot = pd.concat([pd.DataFrame({"replicate": np.arange(len(reps)), "g": g, "v": reps}) for g in levels])
    return Run({"t": point}, {"t": boot.assign(resampled_units=np.inf)}, calibrated_tails=tails)


# 10 of 1,000 replicates at or below 0.5: p of holds (1 + 10) / 1001 = 0.011
REPS = np.r_[np.full(10, 0.45), np.linspace(0.51, 0.7, 990)]
TAILS = CalibratedTails("tails.csv", {"c.x": {"holds": 0.005}}, "m @ abc")


def test_a_claim_firm_at_2_5_percent_is_inconclusive_below_its_tail_and_says_why():
    nominal = evaluate_claim(_claim(ABOVE), _run(REPS))
    assert nominal.verdict == "holds" and nominal.judged.p_holds == pytest.approx(11 / 1001)
    out = evaluate_claim(_claim(ABOVE), _run(REPS, TAILS))
    assert out.verdict == INCONCLUSIVE
    assert out.judged.p_holds == pytest.approx(11 / 1001 / 0.2)  # p x 0.025 / 0.005
    assert out.p_value == pytest.approx(2 * 11 / 1001 / 0.2)  # the two-sided p BH reads: the scaled side
    assert reason_text(out.reasons[0]) == (
        "firm at the nominal 2.5% a side, not at its calibrated tail 0.005 (the level at which it is wrong 2.5% of "
        "the time on the run's own documents; m @ abc)"
    )
    # a tail of 0.015 the p of 0.011 still reaches: firm
    wide = CalibratedTails("tails.csv", {"c.x": {"holds": 0.015}}, "m @ abc")
    assert evaluate_claim(_claim(ABOVE), _run(REPS, wide)).verdict == "holds"


def test_every_level_of_a_per_level_claim_is_read_at_the_tail():
    check = {**ABOVE, "per": "g"}
    assert evaluate_claim(_claim(check), _run(REPS, None, ("a", "b"))).verdict == "holds"
    out = evaluate_claim(_claim(check), _run(REPS, TAILS, ("a", "b")))
    assert out.verdict == INCONCLUSIVE
    assert all(j.p_holds == pytest.approx(11 / 1001 / 0.2) for j in out.judged.levels.values())
    assert out.judged.p_holds == pytest.approx(11 / 1001 / 0.2)  # the largest over the levels


def test_the_terms_carry_the_tails_a_claim_was_read_at():
    from analysis.scorecard.terms import claim_terms

    out = evaluate_claim(_claim(ABOVE), _run(REPS, TAILS))
    terms = {t["term"]: t["value"] for t in claim_terms("c.x", out.judged, 0, None)}
    assert terms["tail_holds"] == pytest.approx(0.005) and terms["tail_does_not_hold"] == pytest.approx(0.025)
    plain = evaluate_claim(_claim(ABOVE), _run(REPS))
    assert "tail_holds" not in {t["term"] for t in claim_terms("c.x", plain.judged, 0, None)}
