"""The seed rule on simulated claims whose truth is known, through the engine's own functions
(tools/measure/seed_calibration.py, small): 3 seeds with a between-seed SD 5 x the bootstrap SD over
14 clusters. On the threshold each direction's wrong verdicts stay within 2.5% + 2 Monte Carlo SE;
stacking the seeds' replicates (as before) does not; above it the rule has power."""

import numpy as np
import pytest

from tools.measure import seed_calibration as sc

NOW, STACKED, ALONE, REFERENCE = sc.ENGINES


def bound(datasets: int) -> float:
    """2.5% plus two Monte Carlo standard errors of a rate of 2.5% over ``datasets`` datasets."""
    return 0.025 + 2 * np.sqrt(0.025 * 0.975 / datasets)


@pytest.mark.parametrize("engine", [NOW, REFERENCE], ids=["3 seeds", "1 seed and a reference"])
def test_truth_on_the_threshold_is_wrong_at_most_2_5_percent_a_direction(engine):
    row = sc.calibrate(500, 100, truths=(0.0,), engines=[engine]).iloc[0]
    assert row.holds <= bound(500) and row.does_not_hold <= bound(500)


def test_the_old_readings_are_wrong_more_often():
    """Stacked replicates: every seed on one side reads firm; one seed alone: its bootstrap, blind to the seed."""
    rows = sc.calibrate(200, 100, truths=(0.0,), engines=[STACKED, ALONE]).set_index("engine")
    assert max(rows.loc[STACKED[0], ["holds", "does_not_hold"]]) > bound(200)
    assert min(rows.loc[ALONE[0], ["holds", "does_not_hold"]]) > 0.2


def test_the_rule_has_power_above_the_threshold():
    """3 standard errors above: a rule that always said inconclusive would score 0 here."""
    rows = sc.calibrate(150, 100, truths=(3.0,), engines=[NOW, REFERENCE])
    assert (rows["holds"] >= 0.25).all() and (rows["does_not_hold"] == 0).all()
    assert rows["mc_se_holds"].tolist() == pytest.approx(np.sqrt(rows["holds"] * (1 - rows["holds"]) / 150).tolist())
