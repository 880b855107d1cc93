"""The model-based adversary's configuration and stopping rules (rule staying_true_adversary): its
defaults are the config schema's, and the two stopping rules (this project's range_change,
Wiegreffe & Pinter's patience on the training loss) on hand-made loss curves and a toy model."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import yaml

from analysis.explanation.staying_true.adversary import (
    AdversaryConfig,
    epochs_since_best,
    finished,
    kept_epoch,
    levelled_off,
    train_adversary,
)
from analysis.explanation.staying_true.models import RegularisedLSTM, StayingTrueConfig
from conftest import ROOT


def schema_section(name: str, *inner: str) -> dict:
    """The ``default`` of each key of a config section (or of an object inside it), read from its
    file config/schema/<name>.schema.yaml, not through the code under test."""
    node = yaml.safe_load((ROOT / "config" / "schema" / f"{name}.schema.yaml").read_text())
    for key in inner:
        node = node["properties"][key]
    return {k: v["default"] for k, v in node["properties"].items() if "default" in v}


def test_defaults_are_the_schema_defaults():
    adversary = schema_section("staying_true", "adversary")
    explanation = schema_section("explanation")
    cfg = dataclasses.asdict(AdversaryConfig())
    expected = {**adversary, "weights": tuple(adversary["weights"]), "jsd_levels": tuple(adversary["jsd_levels"])}
    expected |= {"batch_size": explanation["batch_size"], "seed": explanation["seed"]}
    assert cfg == expected  # every field, and no field the schema lacks
    # the numbers of docs/deviations.md: 500 sentences, at most 80 epochs (Wiegreffe & Pinter's cap), the
    # range_change rule, the attacked model's regulariser in the adversary's loss (the authors' code lineage)
    assert (cfg["n_train"], cfg["max_epochs"], cfg["stopping"], cfg["loss_patience"]) == (500, 80, "range_change", 10)
    assert cfg["regulariser"] is True and (cfg["bracket_jsd"], cfg["jsd_levels"]) == (0.05, (0.3, 0.5))


def test_from_params_takes_every_key_of_the_config():
    # config/paper.yaml: Wiegreffe & Pinter's rule, as their code runs it (every sentence, patience 10, 80 epochs)
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())["staying_true"]["adversary"]
    cfg = AdversaryConfig.from_params(paper, batch_size=8, seed=3)
    assert (cfg.n_train, cfg.max_epochs, cfg.stopping, cfg.loss_patience) == (67349, 80, "patience", 10)
    assert cfg.weights == tuple(paper["weights"]) and (cfg.batch_size, cfg.seed) == (8, 3)
    with pytest.raises(TypeError, match="unknown_key"):
        AdversaryConfig.from_params({"unknown_key": 1})


# epoch objectives: fall, level at 0.49 (epoch 4), creep up again
CURVE = [1.0, 0.6, 0.5, 0.49, 0.495, 0.5, 0.505]


def test_the_two_stopping_rules_on_one_curve():
    # range_change (tol 0.02, 2 in a row): changes relative to the range covered are
    # 0.4/0.4 = 1, 0.1/0.5 = 0.2, 0.01/0.51 = 0.0196, 0.005/0.51 = 0.0098: level after epoch 5
    rule = AdversaryConfig(stopping="range_change", tol=0.02, patience=2)
    stops = [k for k in range(1, len(CURVE) + 1) if finished(CURVE[:k], CURVE[:k], rule)]
    assert stops[0] == 5 and levelled_off(CURVE[:5], 0.02) and not levelled_off(CURVE[:4], 0.02)
    assert kept_epoch(CURVE[:5], "range_change") == 4  # the last of the 5 epochs (0-based)
    # patience 2 on the training loss: the lowest is epoch 4 (0.49); epochs 5 and 6 bring no new
    # lowest: stop after epoch 6, keep epoch 4
    rule = AdversaryConfig(stopping="patience", loss_patience=2)
    stops = [k for k in range(1, len(CURVE) + 1) if finished(CURVE[:k], CURVE[:k], rule)]
    assert stops[0] == 6 and epochs_since_best(CURVE[:6]) == 2
    assert kept_epoch(CURVE[:6], "patience") == 3
    # an epoch only equal to the best is no improvement (Wiegreffe & Pinter: loss < best)
    assert epochs_since_best([0.5, 0.4, 0.4, 0.4]) == 2


def test_patience_keeps_the_weights_of_its_best_epoch():
    torch.manual_seed(0)
    target = RegularisedLSTM("base", 4, 4, d_att=3, vocab_size=5).eval()
    xs = [[3, 4], [2], [2, 4, 3, 3]] * 8
    common = {"n_train": len(xs), "batch_size": 4, "lr": 0.05, "init": "copy"}
    cfg = AdversaryConfig(stopping="patience", loss_patience=2, max_epochs=40, **common)
    adv, _, epochs, losses = train_adversary(target, xs, 1.0, cfg, StayingTrueConfig())
    best = kept_epoch(losses, "patience")
    assert losses == epochs  # base: no regulariser, the training loss is the objective
    assert len(losses) == best + 1 + 2 < 40  # stopped 2 epochs after its best (epoch 8 of 10 here)
    # the same seeded training stopped right at the best epoch ends with the kept weights
    again = AdversaryConfig(stopping="range_change", tol=1e-12, max_epochs=best + 1, **common)
    adv_best, _, _, losses_best = train_adversary(target, xs, 1.0, again, StayingTrueConfig())
    assert losses_best == losses[: best + 1]
    for name, value in adv.state_dict().items():
        assert torch.equal(value, adv_best.state_dict()[name]), name


def test_the_regulariser_switch_keeps_the_tying_term_in_or_out_of_the_adversarys_loss():
    torch.manual_seed(0)
    target = RegularisedLSTM("tying", 4, 4, d_att=3, vocab_size=5).eval()
    xs = [[3, 4], [2], [2, 4, 3, 3]] * 4
    common = {"n_train": len(xs), "batch_size": 4, "lr": 0.05, "max_epochs": 3, "tol": 1e-12, "init": "fresh"}
    st = StayingTrueConfig(d_att=3)
    _, _, objectives, losses = train_adversary(target, xs, 0.5, AdversaryConfig(regulariser=True, **common), st)
    # with it, the loss is the objective plus the (positive) tying term
    assert all(loss > obj for obj, loss in zip(objectives, losses))
    _, _, objectives, losses = train_adversary(target, xs, 0.5, AdversaryConfig(regulariser=False, **common), st)
    assert losses == objectives  # without it, the optimiser minimises the objective alone
