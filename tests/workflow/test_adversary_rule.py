"""tools/measure/adversary_rule.py: the side run of Wiegreffe & Pinter's stopping rule builds its
adversary config from the rule's, and trains each model with and without the regulariser only where
the two differ."""

import pytest

from analysis.core.config_defaults import schema_defaults
from tools.measure import adversary_rule


def test_patience_config_is_wiegreffe_and_pinters_rule_on_the_small_weights():
    adversary = schema_defaults("staying_true", "adversary")
    cfg = adversary_rule.patience_config(adversary, 0.01, batch_size=32, seed=0)
    assert (cfg.stopping, cfg.loss_patience, cfg.max_epochs) == ("patience", 10, 80)
    assert cfg.weights == (0.0, 0.005, 0.01)  # of the default grid 0, 0.005, 0.01, 0.05, 1, 8
    # every other key is the rule's: the search, its levels and distance, the sentences, the start
    assert (cfg.search_steps, cfg.bracket_jsd, cfg.jsd_levels) == (adversary["search_steps"], 0.05, (0.3, 0.5))
    assert (cfg.n_train, cfg.init, cfg.regulariser) == (adversary["n_train"], "fresh", True)
    with pytest.raises(SystemExit, match="--max-weight"):
        adversary_rule.patience_config({**adversary, "weights": [1.0]}, 0.01, 32, 0)


def test_runs_train_the_unregularised_models_once():
    assert adversary_rule.runs(["base", "tying", "mlm"]) == [
        (True, ["base", "tying", "mlm"]),
        (False, ["tying", "mlm"]),
    ]
    assert adversary_rule.runs(["base"]) == [(True, ["base"])]
