"""Training runs (config replicates): each training family's claims pooled over seeds, on
hand-made tables; the claims file names a family for every claim on a trained model."""

import pandas as pd
import pytest
import yaml

from analysis.core.config_defaults import load_schema
from analysis.scorecard.claims import claim_files, read_claims, scorecard
from analysis.scorecard.evaluate import INCONCLUSIVE
from analysis.scorecard.run import Run
from analysis.scorecard.trainings import TRAININGS, claim_seeds, pool_trainings


def claim(check, **kw):
    base = {"id": "x", "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {**base, "check": check, **kw}


ABOVE = {"value": {"table": "t", "column": "v"}, "op": ">", "threshold": 0.5}


def test_trainings_without_bootstrap_are_read_as_their_mean_and_t_interval():
    """Three seeds, no replicate table: each seed's value, read as their mean with a t interval."""
    runs = [Run({"t": pd.DataFrame({"v": [v]})}) for v in (0.6, 0.7, 0.4)]
    pooled = pool_trainings(runs)
    assert pooled.seeds == {"t": 3} and pooled.tables is runs[0].tables and pooled.trainings == tuple(runs[1:])
    assert pooled.boots == {}  # the model's own replicate tables, untouched: no seed is stacked into them
    # k seeds, no bootstrap: the seeds' mean, and a t interval over them (2 df): mean 0.5667, sd 0.1528,
    # half-width 4.303 x 0.1528 / sqrt(3) = 0.3796 -> [0.187, 0.946]: it does not decide > 0.5
    card = scorecard([claim(ABOVE, trained="probes")], pooled)
    row = card.iloc[0]
    assert (row.our_value, row.verdict, row.replicates, row.seeds) == ("0.567 (mean of 3 seeds)", "inconclusive", 3, 3)
    assert (row.interval, row.basis) == ("[0.187, 0.946] (t, 3 seeds)", "seeds")
    # every seed above 0.5 is not enough: (0.6, 0.7, 0.55) gives [0.427, 0.806], still undecided ...
    runs[2] = Run({"t": pd.DataFrame({"v": [0.55]})})
    pooled = pool_trainings(runs)
    assert scorecard([claim(ABOVE, trained="probes")], pooled).iloc[0].verdict == INCONCLUSIVE
    # ... (0.6, 0.62, 0.61): mean 0.61, sd 0.01, 4.303 x 0.01 / sqrt(3) = 0.0248 -> [0.585, 0.635]: holds
    runs = [Run({"t": pd.DataFrame({"v": [v]})}) for v in (0.6, 0.62, 0.61)]
    pooled = pool_trainings(runs)
    row = scorecard([claim(ABOVE, trained="probes")], pooled).iloc[0]
    assert (row.verdict, row.interval) == ("holds", "[0.585, 0.635] (t, 3 seeds)")


def test_a_table_no_training_makes_keeps_one_seed():
    boot_a = pd.DataFrame({"replicate": [0, 1], "v": [0.6, 0.8], "resampled_units": 2})
    runs = [Run({"t": pd.DataFrame({"v": [0.7]}), "u": pd.DataFrame({"v": [1.0]})}, {"u": boot_a})]
    runs.append(Run({"t": pd.DataFrame({"v": [0.25]})}))
    pooled = pool_trainings(runs)
    assert pooled.seeds == {"t": 2, "u": 1} and pooled.boots["u"] is boot_a


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
        "t": {
            "rule": "t",
            "unit": "u",
            "cluster": None,
            "reads_maps": False,
            "finetuned_maps": False,
            "family": "probs",
            "replicates": True,
        }
    }
    with pytest.raises(ValueError, match="claim c.x: trained: 'probs' is not a training family"):
        read_claims(path, registry)
    registry["t"]["family"] = "probes"
    assert read_claims(path, registry)[0]["trained"] == "probes"


def test_every_training_family_is_a_config_trainings_key(registry):
    """The families the claim tables declare (rules/*.smk claim_table) are config trainings' keys,
    and every key trains some claimed table."""
    schema = load_schema()
    assert tuple(schema["properties"]["trainings"]["properties"]) == TRAININGS
    claimed = {c["trained"] for c in read_claims(claim_files(), registry)}
    assert {e["family"] for e in registry.values()} - {None} == set(TRAININGS) == claimed - {None}


def test_the_pages_say_how_many_seeds():
    from analysis.scorecard.pages import scorecard_html, scorecard_markdown

    runs = [Run({"t": pd.DataFrame({"v": [v]})}) for v in (0.6, 0.7, 0.55)]
    pooled = pool_trainings(runs)
    card = scorecard([claim(ABOVE, trained="probes"), claim(ABOVE, id="y")], pooled)
    md = scorecard_markdown(card, "m")
    # t interval of (0.6, 0.7, 0.55): mean 0.6167, sd 0.0764, 4.303 x 0.0764 / sqrt(3) = 0.1898 -> [0.427, 0.806]
    assert "| [0.427, 0.806] (t, 3 seeds) (3 seeds) | **inconclusive** |" in md
    assert (
        "Resting on a training (probes, fine-tuning, classifiers, regularised models, MLM head): 1 paper claim, 0 extensions;"
        in md
    )
    assert (
        "1 paper claim, 0 extensions cover the training's seed" in md
        and "0 paper claims, 0 extensions rest on 1 seed" in md
    )
    assert "(3 seeds)" in scorecard_html(card, "m")
