"""Did a fine-tuned model learn its task? Bootstrap intervals over dev rows (analysis/shared/bootstrap.py),
the finetune_scores columns built from them, and the scorecard's ``learnt_tasks`` premise."""

import numpy as np
import pandas as pd
import pytest

from analysis.core.glue.metrics import accuracy
from analysis.kovaleva.finetune.tables import score_intervals
from analysis.kovaleva.finetune.training import majority_predictions
from analysis.scorecard.evaluate import evaluate_claim, tables_read
from analysis.scorecard.run import Run
from analysis.shared.bootstrap import gain_interval, resample_indices, score_interval


def test_resamples_are_seeded_row_indices():
    a, b = resample_indices(5, 7, seed=3), resample_indices(5, 7, seed=3)
    assert a.shape == (7, 5) and (a == b).all() and a.min() >= 0 and a.max() <= 4
    assert not (resample_indices(5, 7, seed=4) == a).all()


def test_interval_of_two_rows_by_hand():
    # rows: one right, one wrong. A resample of 2 rows scores 0 (p 1/4), 0.5 (1/2) or 1 (1/4):
    # the 2.5th and 97.5th percentiles of many resamples are 0 and 1.
    assert score_interval(accuracy, [1, 0], [1, 1], resamples=4000) == (0.0, 1.0)
    # every row right: every resample scores 1
    assert score_interval(accuracy, [1, 1, 1], [1, 1, 1], resamples=200) == (1.0, 1.0)


def test_gain_is_paired_on_the_same_rows():
    gold = np.array([1, 0, 1, 0, 1, 1])
    # a model equal to its baseline gains exactly 0 on every resample
    assert gain_interval(accuracy, gold, gold, gold, resamples=300) == (0.0, 0.0)
    # right where the baseline (all 1) is wrong, equal elsewhere: the gain is the resample's share
    # of gold-0 rows (2 of 6), between 0 and 1, and never negative
    lo, hi = gain_interval(accuracy, gold, np.ones(6, int), gold, resamples=2000)
    assert lo >= 0 and 0.2 < hi <= 1
    # an always-wrong model loses to a perfect baseline on every resample: gain exactly -1
    assert gain_interval(accuracy, 1 - gold, gold, gold, resamples=100) == (-1.0, -1.0)


def test_majority_predictions():
    train = [{"label": label} for label in (0, 1, 1)]
    assert majority_predictions("SST-2", train, 4).tolist() == [1, 1, 1, 1]
    assert majority_predictions("STS-B", [{"label": 1.0}, {"label": 4.0}], 2).tolist() == [2.5, 2.5]


SCORES = pd.DataFrame(
    {
        "task": ["SST-2", "RTE", "RTE"],
        "metric": ["accuracy", "accuracy", "f1"],
        "main": [True, True, False],
        "learnt": [True, False, False],
        "finetuned": [0.8, 0.53, 0.6],
        "majority": [0.5, 0.527, 0.6],
        "gain_ci95_low": [0.25, -0.04, -0.1],
        "gain_ci95_high": [0.35, 0.05, 0.1],
    }
)
BY_TASK = pd.DataFrame({"task": ["SST-2", "RTE"], "share": [0.4, 0.1]})


def claim(check, learnt_tasks):
    return {"id": "k.x", "check": check, "learnt_tasks": learnt_tasks}


def test_per_task_claim_leaves_out_a_task_not_learnt():
    check = {"per": "task", "value": {"table": "patterns", "column": "share"}, "op": ">=", "threshold": 0.3}
    tables = {"patterns": BY_TASK, "finetune_scores": SCORES}
    assert tables_read(claim(check, "per")) == ["patterns", "finetune_scores"]
    # RTE (0.1) would fail the claim; it was not learnt, so only SST-2 is judged
    out = evaluate_claim(claim(check, "per"), Run(tables))
    assert (out.verdict, out.our_value) == ("holds", "SST-2: 0.4")
    assert out.reason.startswith("left out, not learnt: RTE accuracy 0.53 vs majority class 0.527")
    assert "[-0.04, 0.05]" in out.reason
    # without the premise RTE is judged, and fails
    assert evaluate_claim({"id": "k.x", "check": check}, Run(tables)).verdict == "does not hold"
    # no task learnt: not applicable
    none_learnt = SCORES.assign(learnt=False)
    out = evaluate_claim(claim(check, "per"), Run({"patterns": BY_TASK, "finetune_scores": none_learnt}))
    assert out.verdict == "not applicable" and "SST-2 accuracy 0.8" in out.reason and "RTE" in out.reason


def test_listed_task_not_learnt_makes_the_claim_not_applicable():
    check = {"value": {"table": "patterns", "column": "share", "where": {"task": "RTE"}}, "op": ">", "threshold": 0}
    tables = {"patterns": BY_TASK, "finetune_scores": SCORES}
    out = evaluate_claim(claim(check, ["RTE"]), Run(tables))
    assert out.verdict == "not applicable" and "did not learn" in out.reason and "RTE accuracy" in out.reason
    assert evaluate_claim(claim(check, ["SST-2"]), Run(tables)).verdict == "holds"
    # the premise table missing: the claim is not run, naming it
    out = evaluate_claim(claim(check, ["RTE"]), Run({"patterns": BY_TASK}))
    assert out.verdict == "not run" and "finetune_scores" in out.reason


@pytest.mark.parametrize("task", ["SST-2", "RTE", "STS-B"])
def test_score_intervals_cover_every_metric_of_the_task(task):
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 2, 40) if task != "STS-B" else rng.uniform(0, 5, 40)
    pred = gold if task != "STS-B" else gold + rng.normal(0, 1, 40)
    base = np.full(40, 1 if task != "STS-B" else 2.5)
    out = score_intervals(task, pred, base, gold, resamples=200, seed=0)
    for metric, ci in out.items():
        assert ci["score"][0] <= ci["score"][1] and ci["gain"][0] <= ci["gain"][1], metric
        assert ci["gain"][0] > 0, metric  # a good model beats the constant baseline
