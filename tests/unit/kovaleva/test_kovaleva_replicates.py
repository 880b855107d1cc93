"""Replicate tables of the Kovaleva rules (analysis.kovaleva.replicates): with every weight 1 (the
identity resample) they reproduce the point tables; tiny hand-computed resamples."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from analysis.kovaleva import replicates as R
from analysis.kovaleva.finetune.change import mean_cosines, special_attention_by_layer
from analysis.kovaleva.patterns.features import CLASSES
from analysis.kovaleva.patterns.shares import share_table


def _maps(n_layers, n_heads, n, seed):
    a = np.random.default_rng(seed).random((n_layers, n_heads, n, n))
    return a / a.sum(-1, keepdims=True)


def _ex(i, attn, kinds=None):
    n = attn.shape[-1]
    return SimpleNamespace(id=f"e{i}", input_ids=list(range(n)), attn=attn, kinds=kinds or "C" + "W" * (n - 3) + "PS")


def test_task_seed_is_stable_and_differs_per_task():
    assert R.task_seed(0, "RTE") == R.task_seed(0, "RTE")
    assert len({R.task_seed(0, "RTE"), R.task_seed(0, "MRPC"), R.task_seed(1, "RTE")}) == 3
    w = R.task_weights(7, 5, 0, "RTE")
    assert w.shape == (5, 7) and (w.sum(1) == 7).all()
    idx = R.resample_rows(7, 5, 0, "RTE")  # the same draws as the weights
    assert all(np.array_equal(np.bincount(i, minlength=7), wi) for i, wi in zip(idx, w))


def test_cosine_replicates_reproduce_the_point_table_and_a_hand_example():
    pre = [_ex(i, _maps(3, 2, 5, i)) for i in range(4)]
    fine = [_ex(i, _maps(3, 2, 5, 10 + i)) for i in range(4)]
    kept = []
    t, n = mean_cosines(pre, fine, keep=kept)
    assert n == 4 and len(kept) == 4
    boot = R.cosine_replicates(np.stack(kept), np.ones((2, 4), dtype=int))
    assert list(boot.columns) == ["layer", "cosine", "replicate"] and len(boot) == 2 * 3
    expected = t.groupby("layer").cosine.mean().to_numpy()
    for _, rep in boot.groupby("replicate"):
        np.testing.assert_allclose(rep.cosine.to_numpy(), expected, rtol=1e-12)
    # one layer, two heads; example 0: cosines (1, 0.5), example 1: (0, 0.5)
    cos = np.array([[[1.0, 0.5]], [[0.0, 0.5]]])
    boot = R.cosine_replicates(cos, np.array([[2, 0], [0, 2], [1, 1]]))
    np.testing.assert_allclose(boot.cosine, [0.75, 0.25, 0.5])
    assert boot.replicate.tolist() == [0, 1, 2] and boot.layer.tolist() == [1, 1, 1]


def test_special_replicates_reproduce_the_point_table_and_a_hand_example():
    examples = [_ex(i, _maps(2, 3, n, i)) for i, n in enumerate([5, 7, 6])]  # token-weighted: lengths differ
    kept = []
    t, n = special_attention_by_layer(examples, keep=kept)
    boot = R.special_replicates(kept, np.ones((1, 3), dtype=int))
    assert list(boot.columns) == ["layer", "cls", "sep", "replicate"]
    np.testing.assert_allclose(boot[["cls", "sep"]].to_numpy(), t[["cls", "sep"]].to_numpy(), rtol=1e-12)
    # one layer, one head: example 0 sends 3 of its 4 rows' mass to [CLS], example 1 1 of 2
    stats = [
        {"cls": np.array([[3.0]]), "sep": np.array([[1.0]]), "n_tokens": np.array([[4.0]])},
        {"cls": np.array([[1.0]]), "sep": np.array([[1.0]]), "n_tokens": np.array([[2.0]])},
    ]
    boot = R.special_replicates(stats, np.array([[1, 1], [0, 2], [2, 0]]))
    np.testing.assert_allclose(boot.cls, [4 / 6, 0.5, 0.75])
    np.testing.assert_allclose(boot.sep, [2 / 6, 0.5, 0.25])


def test_share_replicates_reproduce_the_point_table_and_a_hand_example():
    rng = np.random.default_rng(0)
    pred = pd.DataFrame(
        {"input_id": np.repeat(["a", "b", "c"], 4), "label": rng.choice(CLASSES, 12), "variant": "finetuned"}
    )
    point = share_table(pred, ["variant"])
    boot = R.share_replicates(pred, np.ones((2, 3), dtype=int), CLASSES)
    assert list(boot.columns) == ["label", "share", "replicate"]
    for _, rep in boot.groupby("replicate"):
        np.testing.assert_allclose(rep.share.to_numpy(), point.share.to_numpy())
        assert rep.label.tolist() == point.label.tolist()
    # input a: two Vertical maps; input b: one Block, one Heterogeneous
    pred = pd.DataFrame({"input_id": ["a", "a", "b", "b"], "label": ["Vertical", "Vertical", "Block", "Heterogeneous"]})
    boot = R.share_replicates(pred, np.array([[2, 0], [1, 1], [0, 2]]), CLASSES).set_index(["replicate", "label"])
    assert boot.loc[(0, "Vertical"), "share"] == 1.0 and boot.loc[(0, "Block"), "share"] == 0.0
    assert boot.loc[(1, "Vertical"), "share"] == 0.5 and boot.loc[(1, "Block"), "share"] == 0.25
    assert boot.loc[(2, "Heterogeneous"), "share"] == 0.5 and boot.loc[(2, "Vertical"), "share"] == 0.0
    with pytest.raises(ValueError, match="labels outside"):
        R.share_replicates(pred.assign(label="Other"), np.ones((1, 2), dtype=int), CLASSES)


def test_pattern_share_replicates_stack_the_chosen_variants_by_hand():
    # one input per (variant, task): every replicate draws it once, so its shares are the input's own
    pred = pd.DataFrame(
        {
            "variant": ["pretrained"] * 5 + ["finetuned"] * 2,
            "task": ["RTE", "RTE", "RTE", "MRPC", "MRPC", "RTE", "RTE"],
            "input_id": ["r", "r", "r", "m", "m", "r", "r"],
            "label": ["Vertical", "Vertical", "Block", "Diagonal", "Diagonal", "Block", "Block"],
        }
    )
    boot = R.pattern_share_replicates(pred, ["pretrained"], 2, 0, CLASSES)
    assert boot.columns.tolist() == ["variant", "task", "label", "share", "replicate", "resampled_units"]
    # each task's inputs drawn: RTE one input ("r"), MRPC one ("m")
    assert (boot.resampled_units == 1).all()
    assert set(boot.variant) == {"pretrained"} and boot.task.tolist() == ["RTE"] * 10 + ["MRPC"] * 10
    rte = boot[boot.task == "RTE"].set_index(["replicate", "label"]).share
    # RTE: 2 of its 3 maps Vertical, 1 Block; MRPC: both Diagonal
    assert [rte[r, "Vertical"] for r in (0, 1)] == [2 / 3, 2 / 3] and rte[1, "Block"] == 1 / 3
    assert boot[(boot.task == "MRPC") & (boot.label == "Diagonal")].share.tolist() == [1.0, 1.0]
    assert boot.share.sum() == pytest.approx(4.0)  # each of 2 tasks x 2 replicates sums to 1
    none = R.pattern_share_replicates(pred, [], 2, 0, CLASSES)
    assert none.empty and "resampled_units" in none.columns


@pytest.mark.parametrize("task", ["RTE", "MRPC", "CoLA", "STS-B"])
def test_layer_change_replicates_reproduce_score_table(task):
    from analysis.core.glue import metrics
    from analysis.core.glue.tasks import get_task
    from analysis.kovaleva.finetune.disable_heads import score_table

    rng = np.random.default_rng(1)
    n, n_layers, n_heads = 40, 3, 2
    regression = get_task(task).is_regression
    n_out = 1 if regression else 2
    gold = rng.random(n) * 5 if regression else rng.integers(0, 2, n)
    base = rng.normal(size=(n, n_out))
    var = base + rng.normal(scale=0.8, size=(n_layers * (n_heads + 1), n, n_out))
    table = score_table(task, base, var, gold, n_layers, n_heads)
    layers = np.stack([metrics.predictions(task, var[k]) for k in range(n_heads, len(var), n_heads + 1)])
    t_metrics = list(get_task(task).metrics)
    boot = R.layer_change_replicates(t_metrics, gold, metrics.predictions(task, base), layers, np.arange(n)[None])
    assert list(boot.columns) == ["metric", "scope", "layer", "change", "replicate"]
    point = table[table.scope == "layer"][["metric", "layer", "change"]].sort_values(["metric", "layer"])
    got = boot.sort_values(["metric", "layer"])
    assert got.metric.tolist() == point.metric.tolist() and got.layer.tolist() == point.layer.tolist()
    np.testing.assert_allclose(got.change.to_numpy(), point.change.to_numpy(), atol=1e-12)


def test_layer_change_replicates_hand_example(tmp_path):
    gold, unmodified, layers = np.array([1, 0]), np.array([1, 1]), np.array([[1, 0]])  # layer 1 fixes row 1
    idx = np.array([[0, 1], [0, 0], [1, 1]])
    boot = R.layer_change_replicates(["accuracy"], gold, unmodified, layers, idx)
    np.testing.assert_allclose(boot.change, [0.5, 0.0, 1.0])
    assert boot.scope.eq("layer").all() and boot.replicate.tolist() == [0, 1, 2]
    path = tmp_path / "RTE.layer_predictions.npz"
    R.save_layer_predictions(path, task="RTE", gold=gold, unmodified=unmodified, layers=layers)
    back = R.load_layer_predictions(path)
    assert back["task"] == "RTE" and np.array_equal(back["layers"], layers) and np.array_equal(back["gold"], gold)
