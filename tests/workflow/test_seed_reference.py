"""tools/measure/seed_reference.py on small synthetic scorecards: the between-seed SD of each claim's
seeds' values, by level and quantity, written where the scorecard reads it back; too few seeds, or
none, stop it naming what to run."""

import numpy as np
import pandas as pd
import pytest
import yaml

from analysis.scorecard.claims import scorecard, scorecard_and_values
from analysis.scorecard.evaluate import SEED
from analysis.scorecard.run import Run
from analysis.scorecard.seed_reference import COLUMNS, read_seed_reference
from analysis.scorecard.trainings import TRAININGS, pool_trainings
from conftest import ROOT
from tools.measure import seed_reference


def claim(id_, check, **kw):
    base = {"id": id_, "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {**base, "check": check, "trained": "probes", **kw}


ABOVE = {"value": {"table": "t", "column": "v", "where": {"g": "A"}}, "op": ">", "threshold": 0.5}
PER = {"per": "g", "value": {"table": "t", "column": "v"}, "op": ">", "threshold": 0.5}
ORDER = {"greater": [{"table": "u", "column": "a"}, {"table": "u", "column": "b"}]}
CLAIMS = [claim("c.one", ABOVE), claim("c.per", PER), claim("c.order", ORDER)]


def seed_run(s: int) -> Run:
    """Seed s of 5: level A 0.6 + 0.01 s, level B 0.7 - 0.02 s; a - b = 0.2 + 0.03 s (b = 0.3)."""
    t = pd.DataFrame({"g": ["A", "B"], "v": [0.6 + 0.01 * s, 0.7 - 0.02 * s]})
    u = pd.DataFrame({"a": [0.5 + 0.03 * s], "b": [0.3]})
    return Run({"t": t, "u": u})


def write_run(tmp_path, runs, model="m"):
    card, _, terms = scorecard_and_values(CLAIMS, pool_trainings(runs))
    tables = tmp_path / "results" / model / "tables"
    tables.mkdir(parents=True)
    card.to_csv(tables / "scorecard.csv", index=False)
    terms.to_csv(tables / "scorecard.terms.csv", index=False)
    return tmp_path / "results"


def test_the_reference_is_each_quantitys_sd_over_the_seeds(tmp_path, capsys):
    results = write_run(tmp_path, [seed_run(s) for s in range(5)])
    out = tmp_path / "seed_reference.csv"
    args = ["--results", str(results), "--model", "m", "--out", str(out), "--commit", "0123456789abcdef"]
    assert seed_reference.main(args) == 0
    table = pd.read_csv(out, dtype={"group": str}, keep_default_na=False)
    assert list(table.columns) == COLUMNS
    got = {(r.id, r.group, r.quantity): (r.sd, r.seeds) for r in table.itertuples()}
    # SD of 0, 1, 2, 3, 4 (k - 1 in the denominator): sqrt(2.5) = 1.5811, times the step per seed
    step = np.sqrt(2.5)
    assert got == {
        ("c.one", "", "value"): (pytest.approx(0.01 * step, rel=1e-5), 5),
        ("c.order", "", "difference1"): (pytest.approx(0.03 * step, rel=1e-5), 5),
        ("c.per", "A", "value"): (pytest.approx(0.01 * step, rel=1e-5), 5),
        ("c.per", "B", "value"): (pytest.approx(0.02 * step, rel=1e-5), 5),
    }
    assert set(table["model"]) == {"m"} and set(table["commit"]) == {"0123456789abcdef"}
    assert "4 quantities of 3 claims, m @ 0123456" in capsys.readouterr().out
    # what the scorecard reads: a one-seed run of c.one with a bootstrap that alone decides, widened by
    # SD 0.0158: 0.6 +- ... still decides; with the reference's SD made 0.2 it no longer does
    reference = read_seed_reference(out)
    assert reference.of("c.per") == {
        "A": {"value": (pytest.approx(0.0158114), 5)},
        "B": {"value": (pytest.approx(0.0316228), 5)},
    }
    boot = pd.DataFrame({"replicate": range(40), "g": "A", "v": np.linspace(0.58, 0.62, 40), "resampled_units": np.inf})
    one = Run({"t": pd.DataFrame({"g": ["A"], "v": [0.6]})}, {"t": boot}, reference=reference)
    assert scorecard([CLAIMS[0]], one).iloc[0].verdict == "holds"
    table.loc[table["id"] == "c.one", "sd"] = 0.2
    table.to_csv(out, index=False)
    one = Run(one.tables, one.boots, reference=read_seed_reference(out))
    assert scorecard([CLAIMS[0]], one).iloc[0].verdict == SEED


def test_too_few_seeds_or_none_stop_it(tmp_path):
    results = write_run(tmp_path, [seed_run(s) for s in range(3)])
    args = ["--results", str(results), "--model", "m", "--out", str(tmp_path / "r.csv"), "--commit", "c"]
    with pytest.raises(SystemExit, match=r"claim c.one  value: 3 seeds, fewer than 5 \(4 such quantities\)"):
        seed_reference.main(args)
    assert seed_reference.main([*args, "--min-seeds", "3"]) == 0
    one = tmp_path / "one"
    write_run(one, [seed_run(0)])
    with pytest.raises(SystemExit, match="no per-seed values .* config/seed_reference.yaml"):
        seed_reference.main(["--results", str(one / "results"), "--model", "m", "--commit", "c"])
    with pytest.raises(SystemExit, match="scorecard.terms.csv not found"):
        seed_reference.main(["--results", str(tmp_path / "none"), "--model", "m"])


def test_the_overlay_trains_every_family_five_times():
    overlay = yaml.safe_load((ROOT / "config" / "seed_reference.yaml").read_text())
    assert overlay == {"trainings": {family: 5 for family in TRAININGS}}
