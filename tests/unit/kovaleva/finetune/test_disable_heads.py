"""Disabling heads: the hooks change the output exactly as a hand-written uniform-attention
layer does; caching the lower layers gives the same numbers as re-running them."""

import math

import numpy as np
import pytest
import torch

from analysis.core.models import TINY, load_model, shape_of
from analysis.kovaleva.finetune.disable_heads import UniformHeads, disabled_logits, variants
from analysis.shared.attention_modules import start_at_layer


@pytest.fixture(scope="module")
def clf():
    model = load_model(TINY, head="classification", device="cpu", num_labels=3)
    with torch.no_grad():  # sharpen the random model's near-uniform attention, enlarge its logits
        for layer in model.bert.encoder.layer:
            layer.attention.self.query.weight.mul_(25)
            layer.attention.self.key.weight.mul_(25)
            layer.attention.self.value.weight.mul_(10)
        model.classifier.weight.mul_(50)
    return model


@pytest.fixture(scope="module")
def batch(tokenizer):
    enc = tokenizer(
        ["the cat sat on the mat .", "a dog"],
        ["it was happy", "barked loudly at the moon , twice"],
        padding=True,
        return_tensors="pt",
    )
    assert (enc["attention_mask"] == 0).any()  # padding present
    return dict(enc)


def manual_layer(layer, x, key_mask, n_heads, off_heads):
    """A BERT layer written out by hand; heads in ``off_heads`` get probabilities 1/L over
    the L real tokens of their example."""
    sa = layer.attention.self
    b, n, hd = x.shape
    d = hd // n_heads

    def split(t):
        return t.view(b, n, n_heads, d).transpose(1, 2)

    q, k, v = split(sa.query(x)), split(sa.key(x)), split(sa.value(x))
    scores = q @ k.transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~key_mask[:, None, None, :], float("-inf"))
    p = torch.softmax(scores, -1)
    for h in off_heads:
        u = key_mask.float() / key_mask.float().sum(-1, keepdim=True)
        p[:, h] = u[:, None, :].expand(b, n, n)
    ctx = (p @ v).transpose(1, 2).reshape(b, n, hd)
    a = layer.attention.output.LayerNorm(layer.attention.output.dense(ctx) + x)
    return layer.output.LayerNorm(layer.output.dense(layer.intermediate(a)) + a), p


def manual_logits(model, batch, target, off_heads):
    n_layers, n_heads = shape_of(model)
    bert = model.bert
    x = bert.embeddings(input_ids=batch["input_ids"], token_type_ids=batch["token_type_ids"])
    key_mask = batch["attention_mask"].bool()
    for i, layer in enumerate(bert.encoder.layer):
        x, _ = manual_layer(layer, x, key_mask, n_heads, off_heads if i == target else ())
    return model.classifier(bert.pooler(x))


@torch.inference_mode()
def test_manual_layer_matches_model_when_nothing_disabled(clf, batch):
    torch.testing.assert_close(manual_logits(clf, batch, 0, ()), clf(**batch).logits, atol=1e-5, rtol=1e-5)


@torch.inference_mode()
@pytest.mark.parametrize("target,off", [(0, (1,)), (1, (3,)), (1, (0, 2)), (0, (0, 1, 2, 3))])
def test_hook_equals_hand_computation(clf, batch, target, off):
    n_layers, n_heads = shape_of(clf)
    b = batch["input_ids"].shape[0]
    normal = clf(**batch).logits
    disable = torch.zeros((b, n_heads), dtype=torch.bool)
    disable[:, list(off)] = True
    with UniformHeads(clf) as uh:
        uh.set(target, disable, batch["attention_mask"].bool())
        out = clf(**batch, output_attentions=True)
        assert uh.calls == 1
    expected = manual_logits(clf, batch, target, off)
    torch.testing.assert_close(out.logits, expected, atol=1e-5, rtol=1e-5)
    assert not torch.allclose(out.logits, normal, atol=1e-4)  # it did change the output
    # the heads' outputs changed, not the maps a forward pass returns (documented in the module)
    torch.testing.assert_close(out.attentions[target], clf(**batch, output_attentions=True).attentions[target])
    # after the context the model is back to normal
    torch.testing.assert_close(clf(**batch).logits, normal)


@torch.inference_mode()
def test_padding_does_not_change_a_disabled_head(clf, tokenizer):
    """Uniform over REAL tokens: an example gives the same logits alone and padded in a batch."""
    one = dict(tokenizer(["a dog"], ["barked"], return_tensors="pt"))
    two = dict(
        tokenizer(["a dog", "the cat sat on the mat today"], ["barked", "and slept"], padding=True, return_tensors="pt")
    )
    with UniformHeads(clf) as uh:
        outs = []
        for enc in (one, two):
            dis = torch.zeros((enc["input_ids"].shape[0], 4), dtype=torch.bool)
            dis[:, 2] = True
            uh.set(0, dis, enc["attention_mask"].bool())
            outs.append(clf(**enc).logits[0])
    torch.testing.assert_close(outs[0], outs[1], atol=1e-5, rtol=1e-5)


@torch.inference_mode()
def test_start_at_layer_reproduces_full_forward(clf, batch):
    out = clf(**batch, output_hidden_states=True)
    for layer in range(shape_of(clf)[0]):
        with start_at_layer(clf, layer, out.hidden_states[layer]):
            torch.testing.assert_close(clf(**batch).logits, out.logits, atol=1e-5, rtol=1e-5)
    assert len(clf.bert.encoder.layer) == shape_of(clf)[0]  # restored


def test_disabled_logits_cached_equals_uncached_and_by_hand(clf, batch):
    L, H = shape_of(clf)
    batches = [batch, {k: v[:1] for k, v in batch.items()}]
    base, per_var, cost = disabled_logits(clf, batches, max_batch=6, cache=True, progress=False)
    base2, per_var2, cost2 = disabled_logits(clf, batches, max_batch=1000, cache=False, progress=False)
    np.testing.assert_allclose(per_var, per_var2, atol=1e-5)
    np.testing.assert_allclose(base, base2, atol=1e-6)
    var = variants(L, H)
    assert per_var.shape == (L * (H + 1), 3, 3)
    with torch.inference_mode():
        for v in [0, H, H + 1, len(var) - 1]:
            layer, off = var[v]
            np.testing.assert_allclose(per_var[v, :2], manual_logits(clf, batch, layer, off).numpy(), atol=1e-5)
    # L(L+1)/2 instead of L^2 layer passes per variant (plus the unmodified pass)
    n = 3
    assert cost["layer_passes"] == n * L + n * (H + 1) * sum(L - layer for layer in range(L))
    assert cost2["layer_passes"] == cost["layer_passes_without_cache"] == n * L * (1 + len(var))


def test_disabled_logits_of_chosen_heads_equal_those_of_the_full_run(clf, batch):
    # the confirmation stage runs a few heads only: the same logits as in the run of every variant
    L, H = shape_of(clf)
    _, every, _ = disabled_logits(clf, [batch], max_batch=6, progress=False)
    which = [(L - 1, (0,)), (0, (H - 1,))]
    base, chosen, cost = disabled_logits(clf, [batch], max_batch=6, progress=False, which=which)
    var = variants(L, H)
    np.testing.assert_allclose(chosen, every[[var.index(v) for v in which]], atol=1e-6)
    assert cost["variants"] == 2 and chosen.shape[0] == 2


def test_disabled_logits_in_bf16_autocast_stay_near_fp32(clf, batch):
    """``kovaleva_finetune.precision: bf16`` runs the disabling passes under autocast (the hooks'
    uniform heads included): near the fp32 logits, not equal, and still cached."""
    from analysis.core.precision import autocast
    from analysis.shared import attention_modules

    base, per_var, _ = disabled_logits(clf, [batch], max_batch=6, progress=False)
    attention_modules._SITES.pop(clf, None)  # found again, inside autocast, as in the rule
    with autocast("bf16", "cpu"):
        base16, per16, cost16 = disabled_logits(clf, [batch], max_batch=6, progress=False)
    assert cost16["cached"]
    assert np.abs(per16 - per_var).max() < 0.05 and np.abs(base16 - base).max() < 0.05
    assert not np.array_equal(per16, per_var)


def test_mcnemar_and_score_table_by_hand():
    from analysis.kovaleva.finetune.disable_heads import mcnemar_p, score_table

    assert mcnemar_p(7, 1) == pytest.approx(2 * (1 + 8) / 256)
    assert mcnemar_p(0, 0) == 1.0 and mcnemar_p(2, 2) == 1.0
    L, H = 1, 2
    gold = [1, 0, 1, 0]
    base = np.array([[0, 1], [1, 0], [1, 0], [1, 0]], float)  # predicts 1, 0, 0, 0: accuracy 0.75
    var = np.stack(
        [
            np.array([[0, 1], [0, 1], [0, 1], [1, 0]], float),  # head 1: 1 1 1 0 -> 0.75
            base,  # head 2: unchanged
            np.array([[1, 0]] * 4, float),
        ]
    )  # whole layer: 0 0 0 0 -> 0.5
    t = score_table("SST-2", base, var, gold, L, H)
    assert t.scope.tolist() == ["head", "head", "layer"] and t["head"].tolist()[:2] == [1, 2]
    assert t.change.tolist() == pytest.approx([0.0, 0.0, -0.25])
    assert t.changed.tolist() == pytest.approx([0.5, 0.0, 0.25])
    assert t.gained.tolist() == [1, 0, 0] and t.lost.tolist() == [1, 0, 1]


def test_score_table_scope_with_one_head_per_layer():
    # one head: each layer has a head variant and a whole-layer variant with the same heads
    from analysis.kovaleva.finetune.disable_heads import score_table

    gold = [1, 0]
    base = np.array([[0, 1], [1, 0]], float)
    var = np.stack([base, np.array([[1, 0], [1, 0]], float)] * 2)  # 2 layers x (head 1, layer)
    t = score_table("SST-2", base, var, gold, 2, 1)
    assert t.scope.tolist() == ["head", "layer", "head", "layer"]
    assert t["layer"].tolist() == [1, 1, 2, 2]
    assert t.change.tolist() == pytest.approx([0.0, -0.5, 0.0, -0.5])


def _two_task_scores():
    from analysis.kovaleva.finetune.disable_heads import score_table

    gold = [1, 0, 1, 0]
    base = np.array([[0, 1], [1, 0], [1, 0], [1, 0]], float)  # accuracy 0.75
    var = np.stack([np.array([[0, 1], [0, 1], [0, 1], [1, 0]], float), base, np.array([[1, 0]] * 4, float)])
    return [score_table("SST-2", base, var, gold, 1, 2), score_table("MRPC", base, var, gold, 1, 2)]


def test_disable_heads_tables_gather_the_tasks():
    from analysis.kovaleva.finetune.tables import (
        disable_heads_cost,
        disable_heads_summary,
        disable_heads_table,
        main_metric_rows,
    )

    table = disable_heads_table(_two_task_scores())
    assert str(table["head"].dtype) == "Int64" and len(table) == 3 + 2 * 3  # MRPC: f1 and accuracy
    main = main_metric_rows(table)
    assert main.groupby("task").metric.unique().map(list).to_dict() == {"SST-2": ["accuracy"], "MRPC": ["f1"]}
    line = disable_heads_summary(main[main.task == "SST-2"])
    assert line.startswith("SST-2: unmodified accuracy 0.7500; best head L1-H1 +0.0000; 0 heads improve, 0 hurt")
    assert line.endswith("layers [-0.25]")
    cost = disable_heads_cost(
        [{"seconds": 2.0, "examples": 4, "layer_passes": 30, "layer_passes_without_cache": 40, "task": "SST-2"}]
    )
    assert cost.seconds_per_example.tolist() == [0.5] and cost.layer_pass_saving.tolist() == [0.25]


def test_disable_heads_grid_and_figure():
    from analysis.kovaleva.finetune.plots import disable_heads_grid, plot_disable_heads
    from analysis.kovaleva.finetune.tables import disable_heads_table, main_metric_rows
    from analysis.shared.plots import close

    main = main_metric_rows(disable_heads_table(_two_task_scores()))
    sst = main[main.task == "SST-2"].copy()
    sst.loc[sst.scope == "layer", "mcnemar_p"] = 0.01
    grid, annot = disable_heads_grid(sst, 1, 2)
    assert list(grid.columns) == ["1", "2", "all"] and list(grid.index) == [1]
    np.testing.assert_allclose(grid.to_numpy(), [[0.0, 0.0, -25.0]])
    assert annot.tolist() == [["0.0", "0.0", "-25.0*"]]
    fig = plot_disable_heads(main, ["SST-2", "MRPC"], "tiny")
    assert [ax.get_title() for ax in fig.axes if ax.get_title()] == [
        "SST-2: accuracy 75.0 unmodified (4 dev)",
        "MRPC: f1 66.7 unmodified (4 dev)",
    ]
    close(fig)


def test_batched_metrics_match_the_shared_ones():
    from analysis.core.glue import metrics
    from analysis.kovaleva.finetune.disable_heads_null import BATCHED

    rng = np.random.default_rng(0)
    gold_cls, gold_reg = rng.integers(0, 2, 30), rng.normal(size=30).round(1)  # rounded: ties in gold
    preds_cls, preds_reg = rng.integers(0, 2, (3, 30)), rng.normal(size=(3, 30))
    for name, fn in BATCHED.items():
        gold, preds = (gold_reg, preds_reg) if name in ("pearson", "spearman") else (gold_cls, preds_cls)
        assert np.allclose(fn(preds, gold), [metrics.METRICS[name](p, gold) for p in preds]), name
    assert BATCHED["pearson"](np.ones((1, 30)), gold_reg)[0] == 0.0  # a constant prediction, as metrics.pearson


def test_max_gain_null_by_hand():
    from analysis.kovaleva.finetune.disable_heads_null import max_gain_null

    # one head right on one more example of four: each draw swaps that example's two predictions
    # with probability 1/2, so the null change is +0.25 or -0.25 with probability 1/2 each
    gold = np.array([1, 1, 1, 0])
    base = np.array([1, 1, 0, 1])
    head = np.array([[1, 1, 1, 1]])
    null = max_gain_null(base, head, gold, "accuracy", 4000, seed=0)
    assert set(np.round(null, 6)) == {0.25, -0.25}
    assert abs(np.mean(null >= 0.25) - 0.5) < 0.03
    # right on all 8 where the unmodified model is wrong on all 8: the null reaches +1 only when
    # no example is swapped, with probability 1/256
    null = max_gain_null(np.zeros(8, int), np.ones((1, 8), int), np.ones(8, int), "accuracy", 20000, seed=1)
    assert abs(np.mean(null >= 1 - 1e-12) - 1 / 256) < 0.0015
    # the max over heads: a second, useless head (identical to the unmodified model) changes nothing
    both = max_gain_null(base, np.vstack([head, base]), gold, "accuracy", 4000, seed=0)
    assert np.array_equal(both, np.maximum(null_one := max_gain_null(base, head, gold, "accuracy", 4000, 0), 0.0))
    assert null_one.min() == -0.25


def test_max_gain_table_reads_the_best_head_and_its_p_value():
    from analysis.kovaleva.finetune.disable_heads_null import max_gain_table

    gold = np.array([1] * 8 + [0] * 8)
    base_logits = np.tile([[0.0, 1.0]], (16, 1))  # always class 1: accuracy 0.5
    perfect = np.array([[0.0, 1.0]] * 8 + [[1.0, 0.0]] * 8)  # head 1-2 gets every example right
    heads_logits = np.stack([base_logits, perfect])
    t = max_gain_table("SST-2", base_logits, heads_logits, [(0, 0), (0, 1)], gold, n_perm=2000, seed=0)
    row = t[t.metric == "accuracy"].iloc[0]
    assert row["main"] and (row.best_layer, row.best_head) == (1, 2) and row.best_change == 0.5
    # the null reaches +0.5 only if none of the 8 changed examples is swapped: 1/256
    assert row.p_max < 0.02 and row.n_permutations == 2000


def test_best_gain_upper_and_min_detectable_by_hand():
    from analysis.kovaleva.finetune.disable_heads_null import PAPER_EFFECT, best_gain_upper, max_gain_table

    # 4 dev rows, 2 heads: head 1 right on row 2 where the unmodified model is wrong (+0.25 on the
    # full rows), head 2 wrong on row 0 where it was right (-0.25)
    gold = np.array([1, 1, 1, 0])
    base = np.array([1, 1, 0, 0])
    heads = np.array([[1, 1, 1, 0], [0, 1, 0, 0]])
    # three resamples: row 2 twice (head 1 +2/4, head 2 0 -> best +0.5); no row 2 and row 0 once
    # (head 1 0, head 2 -0.25 -> best 0); rows 0, 0, 2, 3 (head 1 +0.25, head 2 -0.5 -> best +0.25)
    idx = np.array([[2, 2, 1, 3], [0, 1, 1, 3], [0, 0, 2, 3]])
    # bests 0.5, 0, 0.25: sorted 0, 0.25, 0.5; the 95th percentile at position 0.95 * 2 = 1.9:
    # 0.25 + 0.9 * 0.25 = 0.475
    assert best_gain_upper(base, heads, gold, "accuracy", idx) == pytest.approx(0.475)
    assert best_gain_upper(base, heads, gold, "accuracy", idx, chunk=1) == pytest.approx(0.475)  # chunked alike
    # the identity resample gives the point best change (+0.25, head 1)
    assert best_gain_upper(base, heads, gold, "accuracy", np.arange(4)[None]) == pytest.approx(0.25)
    # min_detectable: each head differs from the unmodified model on one row (head 1 on row 2, head 2
    # on row 0), and a draw swaps each row's two predictions with probability 1/2: head 1's change
    # is +0.25 (row 2 kept) or -0.25 (swapped), head 2's -0.25 (row 0 kept) or +0.25 (swapped); the
    # best is -0.25 only with row 2 swapped and row 0 kept (1/4), else +0.25: 95th percentile +0.25
    logits = lambda pred: np.stack([1.0 - pred, pred.astype(float)], axis=1)  # noqa: E731
    t = max_gain_table(
        "SST-2", logits(base), np.stack([logits(h) for h in heads]), [(0, 0), (0, 1)], gold, 4000, seed=0, idx=idx
    )
    row = t.iloc[0]
    assert (row.best_layer, row.best_head, row.best_change) == (1, 1, 0.25)
    assert row.min_detectable == pytest.approx(0.25) and row.gain_upper == pytest.approx(0.475)
    assert row.paper_effect == PAPER_EFFECT == 0.01 and row.n_resamples == 3
    # without resamples, no upper bound (the rest unchanged)
    plain = max_gain_table("SST-2", logits(base), np.stack([logits(h) for h in heads]), [(0, 0), (0, 1)], gold, 4000, 0)
    assert "gain_upper" not in plain and plain.p_max.iloc[0] == row.p_max


def test_batched_correlations_take_resampled_gold_rows():
    from analysis.kovaleva.finetune.disable_heads_null import BATCHED

    rng = np.random.default_rng(1)
    gold, pred = rng.normal(size=(3, 10)), rng.normal(size=(3, 10))
    for name in ("pearson", "spearman"):
        assert np.allclose(BATCHED[name](pred, gold), [BATCHED[name](p, g) for p, g in zip(pred, gold)]), name
