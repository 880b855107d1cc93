"""Fine-tuning on a tiny random model and hand-made fixtures; map change by hand."""

import numpy as np
import pandas as pd
import pytest
import torch

from analysis.core.glue.batches import collate, encode
from analysis.core.glue.reader import read_split, select_rows
from analysis.core.glue.tasks import get_task
from analysis.core.models import TINY, load_model
from analysis.kovaleva.finetune import training as finetune
from analysis.kovaleva.finetune.change import head_cosines, mean_cosines
from analysis.kovaleva.finetune.tables import score_intervals, scores_table
from conftest import FIXTURES, random_maps


def test_linear_schedule_warmup_then_decay():
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=1.0)
    sched = finetune.linear_schedule(opt, warmup_steps=2, total_steps=6)
    lrs = []
    for _ in range(6):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert lrs == pytest.approx([0.5, 1.0, 1.0, 0.75, 0.5, 0.25])


def test_encode_truncates_and_counts(tokenizer):
    recs = read_split(FIXTURES / "glue", "RTE", "train")
    items, counts = encode(tokenizer, recs, max_len=8)
    assert counts == {"examples": 2, "truncated": 2}
    assert all(len(it["input_ids"]) == 8 for it in items)
    batch = collate(items, tokenizer.pad_token_id)
    assert batch["labels"].tolist() == [1, 0] and batch["labels"].dtype == torch.long
    sts, _ = encode(tokenizer, read_split(FIXTURES / "glue", "STS-B", "train"), max_len=64)
    assert collate(sts, tokenizer.pad_token_id)["labels"].dtype == torch.float


@pytest.mark.parametrize("task", ["SST-2", "STS-B"])
def test_training_is_seeded_and_learns_the_fixture(tokenizer, task):
    """A few steps at a high rate fit the training fixture; two runs give identical weights."""
    t = get_task(task)
    items, _ = encode(tokenizer, read_split(FIXTURES / "glue", task, "train"), 32)
    runs = []
    for _ in range(2):
        torch.manual_seed(0)
        model = load_model(TINY, head="classification", device="cpu", num_labels=t.num_labels)
        recipe = finetune.Recipe(
            epochs=40, lr=5e-3, batch_size=4, warmup=0.1, weight_decay=0.01, seed=0, max_steps=None
        )
        hist = finetune.train(model, items, tokenizer.pad_token_id, recipe, progress=False)
        runs.append((model, hist))
    (m1, h1), (m2, h2) = runs
    assert [h["loss"] for h in h1] == [h["loss"] for h in h2]
    for a, b in zip(m1.parameters(), m2.parameters()):
        assert torch.equal(a, b)
    assert h1[-1]["loss"] < h1[0]["loss"]
    assert h1[-1]["lr"] == pytest.approx(0.0, abs=1e-9)  # decayed to zero at the last step
    scores = finetune.score(m1, task, items, tokenizer.pad_token_id)
    assert scores[t.main_metric] == pytest.approx(1.0, abs=0.02)


def test_max_steps_caps_training(tokenizer):
    items, _ = encode(tokenizer, read_split(FIXTURES / "glue", "SST-2", "train"), 32)
    model = load_model(TINY, head="classification", device="cpu", num_labels=2)
    recipe = finetune.Recipe(epochs=10, lr=2e-5, batch_size=1, warmup=0.1, weight_decay=0.01, seed=0, max_steps=4)
    hist = finetune.train(model, items, tokenizer.pad_token_id, recipe, progress=False)
    assert len(hist) == 4


def test_bf16_precision_runs_the_forward_passes_in_bf16_and_stays_near_fp32(tokenizer):
    """``precision: bf16`` autocasts the forward passes (the linear layers compute in bf16) while the
    weights stay fp32; its logits are near fp32's (bf16 keeps 8 bits of mantissa), not equal."""
    items, _ = encode(tokenizer, read_split(FIXTURES / "glue", "SST-2", "train"), 32)
    torch.manual_seed(0)
    model = load_model(TINY, head="classification", device="cpu", num_labels=2)
    seen = []
    hook = model.classifier.register_forward_hook(lambda m, args, out: seen.append(out.dtype))
    fp32 = finetune.predict(model, items, tokenizer.pad_token_id)
    bf16 = finetune.predict(model, items, tokenizer.pad_token_id, precision="bf16")
    hook.remove()
    assert seen[0] == torch.float32 and seen[-1] == torch.bfloat16
    assert np.abs(bf16 - fp32).max() < 0.05 and not np.array_equal(bf16, fp32)
    recipe = finetune.Recipe(
        epochs=1, lr=1e-3, batch_size=2, warmup=0.1, weight_decay=0.01, seed=0, max_steps=2, precision="bf16"
    )
    hist = finetune.train(model, items, tokenizer.pad_token_id, recipe, progress=False)
    assert len(hist) == 2 and np.isfinite(hist[-1]["loss"])
    assert all(p.dtype == torch.float32 for p in model.parameters())


def test_majority_score():
    train = [{"label": 1}, {"label": 1}, {"label": 0}]
    dev = [{"label": 1}, {"label": 0}, {"label": 0}, {"label": 1}]
    assert finetune.majority_score("SST-2", train, dev) == {"accuracy": 0.5}
    assert finetune.majority_score("MRPC", train, dev)["f1"] == pytest.approx(2 / 3)  # tp=2 fp=2 fn=0


def test_head_cosines_by_hand():
    a = np.zeros((1, 2, 2, 2))
    b = np.zeros((1, 2, 2, 2))
    a[0, 0] = [[1, 0], [0, 1]]
    b[0, 0] = [[1, 0], [1, 0]]  # overlap 1; norms sqrt(2) each -> 0.5
    a[0, 1] = [[0.5, 0.5], [0.5, 0.5]]
    b[0, 1] = [[0.5, 0.5], [0.5, 0.5]]
    np.testing.assert_allclose(head_cosines(a, b), [[0.5, 1.0]])


class _Ex:
    def __init__(self, id, attn):
        self.id, self.attn, self.input_ids = id, attn, [1, 2, 3]


def test_mean_cosines_pairs_and_checks_inputs():
    x1, x2 = random_maps(2, 3, 3, seed=1), random_maps(2, 3, 3, seed=2)
    t, n = mean_cosines([_Ex("a", x1), _Ex("b", x1)], [_Ex("a", x1), _Ex("b", x2)])
    assert n == 2 and list(t.columns[:2]) == ["layer", "head"] and t.layer.max() == 2 and t["head"].max() == 3
    expected = (1.0 + head_cosines(x1, x2)) / 2
    np.testing.assert_allclose(t.cosine.to_numpy(), expected.ravel())
    with pytest.raises(ValueError, match="not the same input"):
        mean_cosines([_Ex("a", x1)], [_Ex("b", x1)])


def test_train_batches_cover_every_item_once():
    items = [{"input_ids": [0] * n} for n in np.random.default_rng(0).integers(3, 50, size=103)]
    batches = finetune.train_batches(items, 8, np.random.default_rng(1), bucket=4)
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(103)) and max(len(b) for b in batches) == 8
    assert batches == finetune.train_batches(items, 8, np.random.default_rng(1), bucket=4)


def test_adamw_decays_only_matrices_outside_layernorm():
    model = load_model(TINY, head="classification", device="cpu", num_labels=2)
    opt = finetune.adamw(model, lr=1e-3, weight_decay=0.01)
    decay, no_decay = opt.param_groups
    assert decay["weight_decay"] == 0.01 and no_decay["weight_decay"] == 0.0
    names = {id(p): n for n, p in model.named_parameters()}
    assert all(p.ndim >= 2 and "LayerNorm" not in names[id(p)] for p in decay["params"])
    assert all(p.ndim < 2 or "LayerNorm" in names[id(p)] for p in no_decay["params"])
    assert len(decay["params"]) + len(no_decay["params"]) == len(list(model.parameters()))


def _info(task, metrics, **fields):
    """A dev_metrics.json of rule finetune; ``fields`` replace its entries."""
    return {
        "task": task,
        "metrics": metrics,
        "finetuned": {m: 0.9 for m in metrics},
        "pretrained": {m: 0.5 for m in metrics},
        "majority": {m: 0.4 for m in metrics},
        "train": {"examples": 10, "truncated": 1},
        "dev": {"examples": 5, "truncated": 0},
        "train_rows_total": 20,
        "dev_rows_total": 8,
        "settings": {"epochs": 2},
        "steps": 3,
        "train_seconds": 1.0,
        **fields,
    }


def test_scores_table_and_its_figure():
    from analysis.kovaleva.finetune.plots import plot_finetune_scores
    from analysis.shared.plots import close

    t = scores_table([_info("SST-2", ["accuracy"]), _info("MRPC", ["f1", "accuracy"])])
    assert list(zip(t.task, t.metric)) == [("SST-2", "accuracy"), ("MRPC", "f1"), ("MRPC", "accuracy")]
    row = t.iloc[0]
    assert (row.finetuned, row.pretrained_random_head, row.majority, row.epochs) == (0.9, 0.5, 0.4, 2)
    assert (row.train_examples, row.train_truncated, row.dev_rows_total) == (10, 1, 8)
    fig = plot_finetune_scores(t, "tiny")
    assert len(fig.axes[0].patches) == 3 * len(t)
    close(fig)


def test_change_and_special_token_figures_have_a_panel_per_task():
    from analysis.kovaleva.finetune.plots import plot_finetune_change, plot_finetune_special_tokens
    from analysis.shared.plots import close

    tasks = ["SST-2", "RTE", "MRPC"]
    L, H = 2, 3
    layer, head = np.meshgrid(np.arange(1, L + 1), np.arange(1, H + 1), indexing="ij")
    change = pd.concat(
        [
            pd.DataFrame({"task": t, "layer": layer.ravel(), "head": head.ravel(), "cosine": 0.9, "n_examples": 4})
            for t in tasks
        ]
    )
    fig = plot_finetune_change(change, tasks, "tiny")
    assert [ax.get_title() for ax in fig.axes[:3]] == [f"{t} (4 dev inputs)" for t in tasks]
    close(fig)
    special = pd.DataFrame(
        [
            {"task": t, "variant": v, "layer": li, "cls": 0.2, "sep": 0.5, "punct": 0.1}
            for t in tasks
            for v in ("finetuned", "pretrained")
            for li in (1, 2)
        ]
    )
    fig = plot_finetune_special_tokens(special, tasks, "tiny", "[CLS]", "[SEP]")
    assert [ax.get_title() for ax in fig.axes] == tasks and len(fig.axes[0].lines) == 6
    close(fig)


def test_dev_set_loads_a_checkpoint_and_its_seeded_dev_rows(tokenizer, tmp_path):
    """load_dev_set: the saved classifier, a seeded draw of dev rows, batches in eval order with
    the item index of every row (labels kept or dropped)."""
    model = load_model(TINY, head="classification", device="cpu", num_labels=2)
    model.save_pretrained(tmp_path / "ckpt")
    tokenizer.save_pretrained(tmp_path / "ckpt")
    all_dev = read_split(FIXTURES / "glue", "SST-2", "dev")
    dev = finetune.load_dev_set(FIXTURES / "glue", "SST-2", tmp_path / "ckpt", 2, seed=0, max_len=16)
    assert dev.rows_total == len(all_dev) and len(dev.items) == dev.counts["examples"] == min(2, len(all_dev))
    assert [it["id"] for it in dev.items] == [r["id"] for r in select_rows(all_dev, 2, 0)]
    batches, order = dev.batches(1)
    assert sorted(order) == list(range(len(dev.items)))
    assert [int(b["labels"][0]) for b in batches] == [dev.items[i]["label"] for i in order]
    unlabelled, same_order = dev.batches(1, labels=False)
    assert same_order == order and all("labels" not in b for b in unlabelled)


def test_scores_table_marks_a_task_learnt_on_its_learnt_metric_only():
    gold = np.array([1, 0, 1, 0, 1, 0])
    majority = np.ones(6, int)
    # SST-2: perfect vs 0.5 majority: every resample gains > 0 unless it has no gold-0 row
    # (p = 2^-6 per resample): the 2.5th percentile is above 0, so it was learnt
    sst = score_intervals("SST-2", gold, majority, gold, resamples=2000, seed=0)
    # MRPC (main metric F1): the majority class itself: gain exactly 0, not learnt
    mrpc = score_intervals("MRPC", majority, majority, gold, resamples=500, seed=0)
    t = scores_table(
        [
            _info("SST-2", ["accuracy"], finetuned={"accuracy": 1.0}, majority={"accuracy": 0.5}),
            _info(
                "MRPC",
                ["f1", "accuracy"],
                finetuned={"f1": 2 / 3, "accuracy": 0.5},
                majority={"f1": 2 / 3, "accuracy": 0.5},
            ),
        ],
        [sst, mrpc],
    )
    assert t[["task", "metric", "main", "learnt"]].values.tolist() == [
        ["SST-2", "accuracy", True, True],
        ["MRPC", "f1", True, False],
        ["MRPC", "accuracy", False, False],
    ]
    assert t.loc[1, ["gain_ci95_low", "gain_ci95_high"]].tolist() == [0.0, 0.0]
    assert t.loc[0, "finetuned_ci95_low"] == t.loc[0, "finetuned_ci95_high"] == 1.0
    assert t.learnt_metric.tolist() == ["accuracy", "accuracy", "accuracy"]  # MRPC: accuracy, not F1
    assert t.loc[1, ["learnt_gain_ci95_low", "learnt_gain_ci95_high"]].tolist() == [0.0, 0.0]


def test_learnt_metric_is_accuracy_for_f1_tasks_mcc_for_cola_the_correlation_for_sts_b():
    from analysis.kovaleva.finetune.tables import learnt_metric

    assert [learnt_metric(t) for t in ("SST-2", "MRPC", "RTE", "CoLA", "STS-B", "QNLI")] == [
        "accuracy",
        "accuracy",
        "accuracy",
        "mcc",
        "pearson",
        "accuracy",
    ]


def test_an_all_positive_model_learns_mrpc_on_f1_but_not_on_accuracy():
    # 12 dev rows, 4 positive; the training majority is negative (as QQP's): the majority class
    # predicts 0 everywhere (F1 0, accuracy 8/12), the "fine-tuned" model 1 everywhere (F1
    # 2*4 / (2*4 + 8) = 0.5, accuracy 4/12). On a resample with a share q of positive rows F1 gains
    # 2q / (1 + q) > 0 unless it draws no positive row (probability (2/3)^12 = 0.8%, under the 2.5%
    # tail): F1 would say learnt.
    # Accuracy loses 1/3 on the full rows: not learnt.
    gold = np.array([1] * 4 + [0] * 8)
    finetuned, majority = np.ones(12, int), np.zeros(12, int)
    ci = score_intervals("MRPC", finetuned, majority, gold, resamples=2000, seed=0)
    assert ci["f1"]["gain"][0] > 0
    assert ci["accuracy"]["gain"][0] < 0
    info = _info(
        "MRPC", ["f1", "accuracy"], finetuned={"f1": 0.5, "accuracy": 1 / 3}, majority={"f1": 0.0, "accuracy": 2 / 3}
    )
    t = scores_table([info], [ci])
    assert t[["metric", "main", "learnt", "learnt_metric"]].values.tolist() == [
        ["f1", True, False, "accuracy"],
        ["accuracy", False, False, "accuracy"],
    ]
    assert t.learnt_gain_ci95_low.iloc[0] == ci["accuracy"]["gain"][0] < 0
