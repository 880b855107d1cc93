"""Training replicates (config replicates): each training family's claims pooled over seeds, on
hand-made tables; the claims file names a family for every claim on a trained model."""

import pandas as pd
import pytest
import yaml

from analysis.scorecard.claims import read_claims, scorecard
from analysis.scorecard.trainings import TRAININGS, claim_seeds, pool_trainings
from conftest import ROOT


def claim(check, **kw):
    base = {"id": "x", "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {**base, "check": check, **kw}


ABOVE = {"value": {"table": "t", "column": "v"}, "op": ">", "threshold": 0.5}


def test_trainings_without_bootstrap_are_one_replicate_each():
    """Three seeds, no replicate table: the seeds' own values are the replicates."""
    runs = [({"t": pd.DataFrame({"v": [v]})}, {}) for v in (0.6, 0.7, 0.4)]
    boots, seeds = pool_trainings(runs)
    assert seeds == {"t": 3}
    assert boots["t"]["replicate"].tolist() == [0, 1, 2] and boots["t"]["v"].tolist() == [0.6, 0.7, 0.4]
    # the point value is the model's own run (0.6 holds); one seed of three disagrees: inconclusive
    card = scorecard([claim(ABOVE, trained="probes")], runs[0][0], boots=boots, seeds=seeds)
    row = card.iloc[0]
    assert (row.our_value, row.verdict, row.replicates, row.seeds) == ("0.6", "inconclusive", 3, 3)
    # 2.5th / 97.5th percentiles of (0.4, 0.6, 0.7): 0.4 + 0.05 x 0.2 = 0.41 and 0.6 + 0.95 x 0.1 = 0.695
    assert row.interval == "[0.41, 0.695]"
    # every seed above 0.5: holds
    runs[2] = ({"t": pd.DataFrame({"v": [0.55]})}, {})
    boots, seeds = pool_trainings(runs)
    assert scorecard([claim(ABOVE, trained="probes")], runs[0][0], boots=boots, seeds=seeds).iloc[0].verdict == "holds"


def test_bootstraps_of_every_seed_are_pooled_with_distinct_ids():
    boot_a = pd.DataFrame({"replicate": [0, 0, 1, 1], "v": [0.6, 0.8, 0.7, 0.9]})
    boot_b = pd.DataFrame({"replicate": [5, 7], "v": [0.2, 0.3]})
    runs = [({"t": pd.DataFrame({"v": [0.7]})}, {"t": boot_a}), ({"t": pd.DataFrame({"v": [0.25]})}, {"t": boot_b})]
    boots, seeds = pool_trainings(runs)
    assert seeds == {"t": 2}
    # seed 0's replicates keep ids 0 and 1; seed 1's 5 and 7 become 2 and 3
    assert boots["t"]["replicate"].tolist() == [0, 0, 1, 1, 2, 3]
    assert boots["t"]["v"].tolist() == [0.6, 0.8, 0.7, 0.9, 0.2, 0.3]
    # a table only the model's own run has (no training changes it) keeps its replicates and one seed
    runs[0][0]["u"], runs[0][1]["u"] = pd.DataFrame({"v": [1.0]}), boot_b
    boots, seeds = pool_trainings(runs)
    assert seeds["u"] == 1 and boots["u"] is boot_b


def test_a_claim_counts_the_seeds_of_its_trained_tables():
    seeds = {"trained": 3, "premise": 1}
    assert claim_seeds(claim(ABOVE, trained="probes"), seeds, ["trained", "premise"]) == 3
    assert claim_seeds(claim(ABOVE), seeds, ["premise"]) == 0  # a claim on no training
    assert claim_seeds(claim(ABOVE, trained="probes"), {}, ["t"]) == 1  # the default: its own training only


def test_claims_name_a_known_training_family(tmp_path):
    """A claim's family comes from its tables' registry entries; one that is no config trainings key fails."""
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [claim(ABOVE, id="c.x")]}))
    registry = {
        "t": {"rule": "t", "unit": "u", "cluster": None, "reads_maps": False, "family": "probs", "replicates": True}
    }
    with pytest.raises(ValueError, match="claim c.x: trained: 'probs' is not a training family"):
        read_claims(path, registry)
    registry["t"]["family"] = "probes"
    assert read_claims(path, registry)[0]["trained"] == "probes"


def test_every_training_family_is_a_config_trainings_key(registry):
    """The families the claim tables declare (rules/*.smk claim_table) are config trainings' keys,
    and every key trains some claimed table."""
    schema = yaml.safe_load((ROOT / "config" / "schema" / "config.schema.yaml").read_text())
    assert tuple(schema["properties"]["trainings"]["properties"]) == TRAININGS
    claimed = {c["trained"] for c in read_claims(ROOT / "config" / "paper_claims.yaml", registry)}
    assert {e["family"] for e in registry.values()} - {None} == set(TRAININGS) == claimed - {None}


def test_the_pages_say_how_many_seeds():
    from analysis.scorecard.pages import scorecard_html, scorecard_markdown

    runs = [({"t": pd.DataFrame({"v": [v]})}, {}) for v in (0.6, 0.7, 0.55)]
    boots, seeds = pool_trainings(runs)
    card = scorecard([claim(ABOVE, trained="probes"), claim(ABOVE, id="y")], runs[0][0], boots=boots, seeds=seeds)
    md = scorecard_markdown(card, "m")
    # 2.5th / 97.5th percentiles of (0.55, 0.6, 0.7): 0.55 + 0.05 x 0.05 = 0.5525, 0.6 + 0.95 x 0.1 = 0.695
    assert "| [0.552, 0.695] (3 seeds) | **holds** |" in md
    assert "| [0.552, 0.695] | **holds** |" in md  # a claim that names no training: no seed count
    assert "1 claims rest on a training" in md and "3 seed(s) each" in md
    assert "(3 seeds)" in scorecard_html(card, "m")
