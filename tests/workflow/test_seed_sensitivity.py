"""tools/measure/seed_sensitivity.py: the overlay shifts every seed of the config and nothing else; the
comparison calls a change between holds and does not hold a flip, and nothing else."""

import pandas as pd
import yaml

from conftest import ROOT
from tools.measure import seed_sensitivity


def test_overlay_shifts_every_seed_only():
    config = {"a": 1, "seed": 0, "b": {"seed": 3, "n": 5, "c": {"seed": 7}}, "d": {"n": 1}, "flag": {"seed": True}}
    assert seed_sensitivity.shifted_seeds(config, 2) == {"seed": 2, "b": {"seed": 5, "c": {"seed": 9}}}


def test_overlay_of_the_shipped_config(capsys):
    assert seed_sensitivity.main(["overlay", "--config", str(ROOT / "config/config.default.yaml"), "--shift", "1"]) == 0
    overlay = yaml.safe_load(capsys.readouterr().out)
    config = yaml.safe_load((ROOT / "config/config.default.yaml").read_text())
    assert overlay["corpora"]["wiki"] == {"seed": config["corpora"]["wiki"]["seed"] + 1}
    # seeds config.yaml leaves to the schema's defaults (all 0) are shifted too
    assert overlay["kovaleva_finetune"] == {"seed": 1}
    assert overlay["clark_surface"] == {"mlm_head": {"seed": 1}, "gradient_importance": {"seed": 1}}
    assert overlay["bootstrap"] == {"seed": 1} and overlay["explanation"]["seed"] == 1
    assert overlay["random_init"] == {"seed": 1}  # the control's weights


def test_compare_counts_flips(tmp_path, capsys):
    a = pd.DataFrame({"id": list("wxyz"), "verdict": ["holds", "holds, also at random init", "inconclusive", "holds"]})
    b = pd.DataFrame({"id": list("wxyz"), "verdict": ["inconclusive", "does not hold", "does not hold", "holds"]})
    changed = seed_sensitivity.flips(a, b).set_index("id")
    assert list(changed.index) == ["w", "x", "y"] and changed["flip"].tolist() == [False, True, False]
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    assert seed_sensitivity.main(["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]) == 1
    assert "FLIP x: holds, also at random init -> does not hold" in capsys.readouterr().out
    assert seed_sensitivity.main(["compare", str(tmp_path / "a.csv"), str(tmp_path / "a.csv")]) == 0
