"""Claims read off fine-tuned models' maps: no random-init network is fine-tuned, so such a claim
states the role descriptive, and a "holds" reads "holds (no control)", counted apart from support."""

import pandas as pd
import pytest
import yaml

from analysis.scorecard.claims import read_claims, scorecard
from analysis.scorecard.counts import headline
from analysis.scorecard.evaluate import NO_CONTROL
from analysis.scorecard.run import Run

ENTRY = {"rule": "r", "unit": "u", "cluster": None, "replicates": False, "family": None}
REGISTRY = {
    "tuned": {**ENTRY, "reads_maps": False, "finetuned_maps": True},
    "plain": {**ENTRY, "reads_maps": False, "finetuned_maps": False},
}


def claim(id_, table, threshold, **kw):
    check = {"value": {"table": table, "column": "v", "agg": "max"}, "op": ">", "threshold": threshold}
    return {"id": id_, "paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k"} | {
        "figure": "f",
        "check": check,
        **kw,
    }


def write(tmp_path, claims):
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": claims}))
    return path


def test_a_finetuned_map_claim_that_holds_reads_no_control(tmp_path):
    # max v = 0.8: above 0.5 (holds), not above 0.9 (does not hold); the plain table's claim holds as before
    claims = read_claims(
        write(
            tmp_path,
            [
                claim("k.tuned_holds", "tuned", 0.5, control="descriptive"),
                claim("k.tuned_fails", "tuned", 0.9, control="descriptive"),
                claim("k.plain_holds", "plain", 0.5),
            ],
        ),
        REGISTRY,
    )
    tables = {"tuned": pd.DataFrame({"v": [0.2, 0.8]}), "plain": pd.DataFrame({"v": [0.2, 0.8]})}
    card = scorecard(claims, Run(tables)).set_index("id")
    assert card["verdict"].to_dict() == {
        "k.tuned_holds": NO_CONTROL,
        "k.tuned_fails": "does not hold",
        "k.plain_holds": "holds",
    }
    assert card.loc["k.tuned_holds", "reason"].startswith("read off fine-tuned maps, with no control")
    assert card.loc["k.tuned_holds", "control_role"] == "descriptive"
    assert card.loc["k.plain_holds", "control_role"] == ""
    # counted apart from support: one plain holds (these claims have no replicates: point only)
    text = (
        "3 paper claims: none; on their point value alone (no interval): 1 holds, 1 holds (no control), 1 does not hold"
    )
    assert headline(card.reset_index()) == text


def test_a_finetuned_map_claim_must_say_descriptive(tmp_path):
    for role in ({}, {"control": "learned"}):
        path = write(tmp_path, [claim("k.tuned", "tuned", 0.5, **role)])
        with pytest.raises(ValueError, match=r"claims.yaml: claim k.tuned: it reads fine-tuned models' attention maps"):
            read_claims(path, REGISTRY)
