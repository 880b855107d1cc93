"""The control reference tool (tools/measure/control_reference.py): each map claim's between-draw SD
from a scorecard's terms, by hand; too few draws left out and said; none stops it."""

import pandas as pd
import pytest

from analysis.scorecard.control_reference import read_control_reference
from tools.measure.control_reference import main, reference_table


def terms(rows):
    return pd.DataFrame(rows, columns=["id", "group", "term", "value"])


def test_the_reference_is_each_claims_sd_over_the_draws(tmp_path, capsys):
    t = terms(
        [
            ("a.x", "", "value", 0.9),  # not a draw's strength
            ("a.x", "", "control_strength1", 0.1),
            ("a.x", "", "control_strength2", 0.2),
            ("a.x", "", "control_strength3", 0.3),
            ("b.y", "", "control_strength1", 0.5),  # one draw with a strength: left out
        ]
    )
    table, few = reference_table(t, "m", "abc")
    assert table.to_dict("records") == [
        {"id": "a.x", "sd": pytest.approx(0.1), "draws": 3, "model": "m", "commit": "abc"}
    ]
    assert few == ["b.y"]
    tables = tmp_path / "results" / "m" / "tables"
    tables.mkdir(parents=True)
    t.to_csv(tables / "scorecard.terms.csv", index=False)
    out = tmp_path / "ref.csv"
    assert main(["--results", str(tmp_path / "results"), "--model", "m", "--out", str(out), "--commit", "abc1234"]) == 0
    assert read_control_reference(out).of("a.x") == (pytest.approx(0.1), 3)
    assert "left out b.y" in capsys.readouterr().out


def test_no_claim_with_enough_draws_stops_it():
    with pytest.raises(ValueError, match="config/control_reference.yaml"):
        reference_table(terms([("a.x", "", "control_strength1", 0.1)]), "m", "abc")
    with pytest.raises(ValueError, match="no control draws"):
        reference_table(terms([("a.x", "", "value", 0.1)]), "m", "abc")
