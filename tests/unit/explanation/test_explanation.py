"""Attention-as-explanation tests on a hand-built classifier whose answers are computed by hand.

The hand-built classifier: token representations are scalars h_t (H is (n, 1)); the output
layer gives logits (0, sum_t a_t h_t), so p(positive) = sigmoid(sum_t a_t h_t) and the decision
is positive iff the attention-weighted sum of h is > 0.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from analysis.explanation.adversarial import AdversarySearch, _best_feasible, _start_logits, adversarial_attention
from analysis.explanation.attn_classifiers import train_all
from analysis.explanation.classifiers import AttnClassifier, TrainConfig, Vocab
from analysis.explanation.divergences import js_divergence, tvd
from analysis.explanation.erasure import (
    erasure_tables,
    rankings,
    set_erasure,
    set_summary,
    single_erasure,
)
from analysis.explanation.explainer import Explainer, Instance, instance_fields, renormalise
from analysis.explanation.permutation import permutation_test
from analysis.explanation.rank_agreement import kendall_tau
from analysis.explanation.setup import load_explainers
from analysis.explanation.sst2 import read_sst2
from conftest import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "explanation"


class HandBuilt:
    """The explainer interface (probs_with_attention, decide_keep, attention_gradient) of the
    hand-built classifier."""

    def __init__(self):
        self.out = torch.nn.Linear(1, 2)
        with torch.no_grad():
            self.out.weight.copy_(torch.tensor([[0.0], [1.0]]))
            self.out.bias.zero_()

    def instance(self, h, a, i=0):
        H = torch.tensor(h, dtype=torch.float32)[:, None]
        a = torch.tensor(a, dtype=torch.float32)
        probs = self.probs_with_attention_raw(H, a[None])[0]
        return Instance(i, [f"w{t}" for t in range(len(h))], 1, H, a, probs)

    def probs_with_attention_raw(self, H, A):
        return torch.softmax(self.out(torch.einsum("bn,nd->bd", A, H)), -1)

    def probs_with_attention(self, inst, A):
        return self.probs_with_attention_raw(inst.H, A)

    def decide_keep(self, inst):
        return lambda keep: self.probs_with_attention(inst, renormalise(inst.a, keep))

    def attention_gradient(self, inst):
        a = inst.a.clone().requires_grad_(True)
        p = self.probs_with_attention(inst, a[None])[0, inst.pred]
        (g,) = torch.autograd.grad(p, a)
        return g


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def p_pos(c):
    return torch.tensor([1 - sigmoid(c), sigmoid(c)], dtype=torch.float64)


# h = (1, 1, 5, -2), a = (.4, .3, .1, .2): sum = .4 + .3 + .5 - .4 = 0.8 > 0 -> positive.
H4, A4 = [1.0, 1.0, 5.0, -2.0], [0.4, 0.3, 0.1, 0.2]


def test_js_divergence_and_tvd_by_hand():
    p, q = torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])
    assert float(js_divergence(p, q)) == pytest.approx(math.log(2))
    assert float(js_divergence(p, p)) == 0.0
    # p = (1/2, 1/2), q = (1, 0): m = (3/4, 1/4); JS = 1/2 [1/2 ln(2/3) + 1/2 ln 2] + 1/2 ln(4/3)
    want = 0.5 * (0.5 * math.log(0.5 / 0.75) + 0.5 * math.log(0.5 / 0.25)) + 0.5 * math.log(1 / 0.75)
    assert float(js_divergence(torch.tensor([0.5, 0.5]), torch.tensor([1.0, 0.0]))) == pytest.approx(want)
    assert float(tvd(torch.tensor([0.2, 0.8]), torch.tensor([0.5, 0.5]))) == pytest.approx(0.3)


def test_set_erasure_flip_point_by_hand():
    clf = HandBuilt()
    inst = clf.instance(H4, A4)
    assert inst.pred == 1
    decide = clf.decide_keep(inst)
    # attention order 0 (.4), 1 (.3), 3 (.2), 2 (.1): sums (.3+.5-.4)/.6 > 0, (.5-.4)/.3 > 0,
    # then only item 2 (h = 5) is left: never flips.
    res = set_erasure(np.array([0, 1, 3, 2]), inst.a, decide, inst.probs)
    assert res["flipped"] is False and math.isnan(res["fraction_removed"])
    # gradient order: d p / d a_t = p(1-p) h_t -> items 2 (h=5), 0, 1 (tie, position order), 3.
    # remove 2: (.4+.3-.4)/.9 > 0; remove 0 too: (.3-.4)/.5 = -0.2 < 0 -> flips after 2 items.
    grad = clf.attention_gradient(inst)
    s = sigmoid(0.8)
    assert torch.allclose(grad, s * (1 - s) * torch.tensor(H4), atol=1e-6)
    orders = rankings(inst.a, grad, np.random.default_rng(0))
    assert orders["attention"].tolist() == [0, 1, 3, 2]
    assert orders["gradient"].tolist() == [2, 0, 1, 3]
    # attention x gradient ∝ a h = (.4, .3, .5, -.4) -> 2, 0, 1, 3
    assert orders["attention_x_gradient"].tolist() == [2, 0, 1, 3]
    res = set_erasure(orders["gradient"], inst.a, decide, inst.probs)
    assert res == {
        "n_items": 4,
        "flipped": True,
        "n_removed": 2,
        "fraction_removed": 0.5,
        "mass_removed": pytest.approx(0.5),
    }


def test_set_erasure_may_erase_every_item():
    clf = HandBuilt()
    inst = clf.instance(H4, A4)
    decide = clf.decide_keep(inst)
    # the attention order leaves item 2 (h = 5) to the end: with one item kept it never flips;
    # erasing it too leaves an empty context (logits 0, 0: class 0 by argmax): flips after all 4
    res = set_erasure(np.array([0, 1, 3, 2]), inst.a, decide, inst.probs, erase_all=True)
    assert res == {
        "n_items": 4,
        "flipped": True,
        "n_removed": 4,
        "fraction_removed": 1.0,
        "mass_removed": pytest.approx(1.0),
    }
    # an order that flips earlier is unchanged by erase_all (gradient order: after 2 items)
    early = set_erasure(np.array([2, 0, 1, 3]), inst.a, decide, inst.probs, erase_all=True)
    assert early["n_removed"] == 2


def test_erasure_tables_draw_several_random_orders():
    clf = HandBuilt()
    insts = [clf.instance(H4, A4, i=0)]
    _, one, _ = erasure_tables(insts, clf, seed=0)
    _, five, _ = erasure_tables(insts, clf, seed=0, random_orders=5)
    assert [r["order"] for r in one] == ["random", "attention", "gradient", "attention_x_gradient"]
    assert [r["draw"] for r in one] == [0, 0, 0, 0]
    assert len(five) == 8 and [r["draw"] for r in five if r["order"] == "random"] == [0, 1, 2, 3, 4]
    assert five[:4] == one  # the first random order is the one a single draw gives


def test_single_erasure_by_hand():
    clf = HandBuilt()
    inst = clf.instance(H4, A4)
    rng = np.random.default_rng(3)
    res = single_erasure(inst.a, clf.decide_keep(inst), inst.probs, rng)
    assert res["top_index"] == 0 and res["top_weight"] == pytest.approx(0.4)
    # top erased: sum = (.3 + .5 - .4) / .6 = 2/3 -> no flip
    want_top = float(js_divergence(p_pos(2 / 3), p_pos(0.8)))
    assert res["jsd_top"] == pytest.approx(want_top, abs=1e-6)
    assert res["flip_top"] is False
    # the random item, whichever it is, by hand
    r = res["random_index"]
    assert r != 0
    keep = [1.0] * 4
    keep[r] = 0.0
    c = sum(k * a * h for k, a, h in zip(keep, A4, H4)) / sum(k * a for k, a in zip(keep, A4))
    assert res["jsd_random"] == pytest.approx(float(js_divergence(p_pos(c), p_pos(0.8))), abs=1e-6)
    assert res["flip_random"] is (c < 0)
    assert res["weight_difference"] == pytest.approx(0.4 - A4[r])


def test_erasure_tables_skip_single_items_and_count():
    clf = HandBuilt()
    insts = [clf.instance(H4, A4, i=0), clf.instance([1.0], [1.0], i=1)]
    single, sets, skipped = erasure_tables(insts, clf, seed=0)
    assert skipped == 1 and len(single) == 1 and len(sets) == 4
    again = erasure_tables(insts, clf, seed=0)
    assert again[0] == single and again[1] == sets  # seeded


def test_permutation_effect_by_hand():
    clf = HandBuilt()
    # two items, a = (.75, .25), h = (2, -1): identity -> sum 1.25; swap -> .5 - .75 = -0.25.
    inst = clf.instance([2.0, -1.0], [0.75, 0.25])
    d = sigmoid(1.25) - sigmoid(-0.25)
    res = permutation_test(
        inst.a, lambda A: clf.probs_with_attention(inst, A), inst.probs, 101, np.random.default_rng(0)
    )
    assert res["max_output_change"] == pytest.approx(d, abs=1e-6)
    # each permutation is the identity or the swap; the median is 0 or d (101 draws: no ties)
    assert min(abs(res["median_output_change"]), abs(res["median_output_change"] - d)) < 1e-6
    rng = np.random.default_rng(0)
    swaps = sum(rng.permutation(2)[0] == 1 for _ in range(101))
    assert res["flip_rate"] == pytest.approx(swaps / 101)
    assert res["median_output_change"] == pytest.approx(d if swaps > 50 else 0.0, abs=1e-6)
    # uniform attention: every permutation gives the same output -> no change at all
    inst = clf.instance([3.0, -1.0, 0.5], [1 / 3, 1 / 3, 1 / 3])
    res = permutation_test(
        inst.a, lambda A: clf.probs_with_attention(inst, A), inst.probs, 50, np.random.default_rng(0)
    )
    assert res["max_output_change"] == pytest.approx(0.0, abs=1e-6)


def test_adversarial_attention_respects_tolerance():
    clf = HandBuilt()
    out_fn = lambda H, A: clf.out(torch.einsum("bn,bnd->bd", A, H))  # noqa: E731
    # equal representations: the output cannot depend on attention -> a far adversary exists;
    # from uniform over 4, one-hot reaches JS = (3/4) ln 2 - ... > 0.3 nats.
    H = torch.ones((2, 4, 1))
    H[1] = torch.tensor([10.0, -10.0, 10.0, -10.0])[:, None]  # very sensitive output
    a0 = torch.full((2, 4), 0.25)
    mask = torch.ones((2, 4), dtype=torch.bool)
    p0 = torch.softmax(out_fn(H, a0), -1).detach()
    for search in (
        AdversarySearch(steps=150),
        AdversarySearch(
            restarts=1,
            init="original",
            noise=1.0,
            steps=150,
            lr=0.2,
            penalty=100.0,
            amsgrad=False,
            cross_jsd=False,
            keep="best_iterate",
        ),
    ):
        res = adversarial_attention(H, mask, a0, out_fn, p0, search, seed=0)
        assert res["jsd"].shape == (2, 2)  # (reported tolerances, instances)
        assert res["jsd"][:, 0].min() > 0.3
        assert (res["jsd"] <= math.log(2) + 1e-9).all()
        assert (res["output_change"][0] <= 0.01 + 1e-9).all() and (res["output_change"][1] <= 0.05 + 1e-9).all()
        assert res["jsd"][0, 1] < res["jsd"][0, 0]
        assert (res["jsd"][1] >= res["jsd"][0]).all()  # a looser bound keeps at least as far an adversary
        again = adversarial_attention(H, mask, a0, out_fn, p0, search, seed=0)
        assert np.array_equal(again["jsd"], res["jsd"])


def test_best_feasible_of_k_adversaries():
    # two instances x three adversaries, by hand: instance 0 has two within 0.01 (JSD 0.1 and
    # 0.3: keep 0.3), instance 1 none (keep the original: JSD 0, no adversary max weight)
    j = torch.tensor([0.1, 0.5, 0.3, 0.2, 0.4, 0.6], dtype=torch.float64)
    d = torch.tensor([0.0, 0.02, 0.005, 0.03, 0.04, 0.05], dtype=torch.float64)
    amax = torch.tensor([0.5, 0.9, 0.7, 0.6, 0.8, 0.95], dtype=torch.float64)
    bj, bd, bmax, n_ok = _best_feasible(j, d, amax, d <= 0.01, 2, 3)
    assert bj.tolist() == [0.3, 0.0] and bd.tolist() == [0.005, 0.0] and n_ok.tolist() == [2, 0]
    assert bmax[0] == 0.7 and torch.isnan(bmax[1])
    bj, bd, _, n_ok = _best_feasible(j, d, amax, d <= 0.05, 2, 3)
    assert bj.tolist() == [0.5, 0.6] and bd.tolist() == [0.02, 0.05] and n_ok.tolist() == [3, 3]


def test_authors_start_is_uniform_plus_noise_over_the_real_items():
    a0 = torch.tensor([[0.7, 0.2, 0.1, 0.0], [0.25, 0.25, 0.25, 0.25]])
    mask = torch.tensor([[True, True, True, False], [True, True, True, True]])
    g = torch.Generator().manual_seed(0)
    z = _start_logits(a0, mask, AdversarySearch(noise=0.0), g)
    # log(1/3) on every item of the first row (3 real items), log(1/4) on the second
    assert torch.allclose(z[0], torch.full((4,), math.log(1 / 3))) and torch.allclose(
        z[1], torch.full((4,), math.log(1 / 4))
    )
    with pytest.raises(ValueError, match="explanation.adversarial.init"):
        _start_logits(a0, mask, AdversarySearch(init="zeros"), g)


def test_kendall_tau():
    assert kendall_tau([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    assert math.isnan(kendall_tau([1], [1]))


def test_classifier_explainer_consistency():
    """The real classifier's explainer: keep-all reproduces the output, leave-one-out and
    gradients have one value per token."""
    torch.manual_seed(0)
    vocab = Vocab(["good", "bad", "film"])
    clf = AttnClassifier("lstm", 5, hidden=8, d_att=4, vocab_size=len(vocab))
    ex = Explainer(clf, vocab)
    inst = ex.instance(0, ["good", "film", "unknownword"], 1)
    assert inst.n == 3 and float(inst.a.sum()) == pytest.approx(1.0)
    p = ex.decide_keep(inst)(torch.ones((1, 3)))
    assert torch.allclose(p[0], inst.probs, atol=1e-6)
    assert ex.input_gradient_importance(inst).shape == (3,)
    loo = ex.leave_one_out(inst)
    assert loo.shape == (3,) and (loo >= 0).all()
    assert ex.attention_gradient(inst).shape == (3,)


def test_input_gradient_holds_the_attention_fixed():
    """No encoder: H = X, so with the attention held fixed (Jain & Wallace) the gradient of
    p(decision) w.r.t. x_t is a_t * dp/dc, with c = sum_t a_t x_t the pooled vector."""
    torch.manual_seed(1)
    vocab = Vocab(["good", "bad", "film"])
    clf = AttnClassifier("none", 5, d_att=4, vocab_size=len(vocab))
    ex = Explainer(clf, vocab)
    inst = ex.instance(0, ["good", "bad", "film"], 1)
    X = ex._embed(inst.inputs).detach()
    c = (inst.a[:, None] * X).sum(0).detach().requires_grad_(True)
    p = torch.softmax(clf.out(c), -1)[inst.pred]
    (dp_dc,) = torch.autograd.grad(p, c)
    expected = (inst.a[:, None] * dp_dc[None] * X).sum(-1).abs()
    assert torch.allclose(ex.input_gradient_importance(inst), expected, atol=1e-6)


def test_read_sst2_and_train_word_classifiers():
    train, counts = read_sst2(FIXTURES, "train")
    assert counts == {"rows": 6, "kept": 6, "not_used": 0}
    assert train[0] == (["a", "charming", "and", "affecting", "journey"], 1)
    sub, counts = read_sst2(FIXTURES, "train", limit=3, seed=0)
    assert len(sub) == 3 and counts["not_used"] == 3
    dev, _ = read_sst2(FIXTURES, "dev")
    cfg = TrainConfig(epochs=2, batch_size=2, hidden=8, d_att=4)
    bundle, rows = train_all(train, dev, ["none", "cnn"], cfg)
    assert [r["encoder"] for r in rows] == ["none", "cnn"]
    assert rows[0]["dev_tokens"] == 8 and rows[0]["dev_unk_tokens"] == 0  # every dev word is in train
    bundle2, rows2 = train_all(train, dev, ["none", "cnn"], cfg)
    assert rows2 == rows  # seeded
    ex = load_explainers(bundle)
    inst = ex["cnn"].instance(0, dev[0][0], dev[0][1])
    assert inst.n == 3


def test_row_patch_identity_and_cls_explainer():
    """Patching the [CLS] row with the identity changes nothing (padded batch included);
    keeping every item reproduces the decision."""
    from analysis.core.models import load_model, load_tokenizer
    from analysis.explanation.attention_patch import RowPatch
    from analysis.explanation.erasure_cls import ClsExplainer
    from analysis.explanation.frozen_transformer import FrozenTransformer

    model, tok = load_model("tiny-random-bert", device="cpu"), load_tokenizer("tiny-random-bert")
    enc = tok(["a short one", "a rather longer sentence here"], padding=True, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc, output_attentions=True)
        ref, row = out.last_hidden_state, out.attentions[1][:, :, 0]  # the unpatched [CLS] rows (B, heads, n)
        with RowPatch(model, 1, 0, row) as patch:
            patch.fn = lambda row: row
            same = model(**enc).last_hidden_state
            patch.fn = lambda row: torch.full_like(row, 1.0 / row.shape[-1])
            uniform = model(**enc).last_hidden_state
        after = model(**enc).last_hidden_state
    torch.testing.assert_close(same, ref, rtol=1e-5, atol=1e-6)  # the same row, computed at the head sites
    assert torch.equal(ref, after)
    # only the [CLS] position of the last layer changes
    assert not torch.allclose(uniform[:, 0], ref[:, 0])
    assert torch.allclose(uniform[:, 1:], ref[:, 1:])
    tf = FrozenTransformer(model, tok, 32)
    torch.manual_seed(0)
    probe = torch.nn.Linear(model.config.hidden_size, 2)
    ex = ClsExplainer(tf, probe, layer=1)
    inst = ex.instance(0, ["a", "fine", "film"], 1)
    assert inst.inputs["kinds"][0] == "C" and inst.n == len(inst.tokens)
    assert float(inst.a.sum()) == pytest.approx(1.0, abs=1e-5)
    p = ex.decide_keep(inst)(torch.ones((2, inst.n)))
    assert torch.allclose(p, inst.probs[None].expand(2, -1), atol=1e-6)
    assert ex.attention_gradient(inst).shape == (inst.n,)


def test_cls_explainer_fast_path_matches_full_forward():
    """Re-running only the layers from the patched one up gives the full model's answer."""
    from analysis.core.models import load_model, load_tokenizer
    from analysis.explanation.erasure_cls import ClsExplainer
    from analysis.explanation.frozen_transformer import FrozenTransformer

    model, tok = load_model("tiny-random-bert", device="cpu"), load_tokenizer("tiny-random-bert")
    torch.manual_seed(1)
    probe = torch.nn.Linear(model.config.hidden_size, 2)
    for layer in (0, 1):
        ex = ClsExplainer(FrozenTransformer(model, tok, 32), probe, layer=layer)
        inst = ex.instance(0, ["not", "a", "good", "film"], 0)
        assert "h_in" in inst.inputs
        keep = torch.ones((3, inst.n))
        keep[0, 1] = 0
        keep[1, :3] = 0
        keep[2, -1] = 0

        def fn(row, keep=keep):
            w = row * keep[:, None, :]
            return w / w.sum(-1, keepdim=True)

        fn.batch = 3
        fast = ex._run(inst, fn, fast=True)
        full = ex._run(inst, fn, fast=False)
        assert torch.allclose(fast, full, atol=1e-6)


def test_set_summary_pairs_orders_with_attention():
    nan = float("nan")
    df = pd.DataFrame(
        {
            "encoder": ["e"] * 4,
            "id": [0, 0, 1, 1],
            "order": ["attention", "gradient"] * 2,
            "flipped": [True, True, False, True],
            "n_removed": [3, 1, nan, 5],
            "fraction_removed": [0.3, 0.1, nan, 0.5],
            "mass_removed": [0.5, 0.2, nan, 0.6],
        }
    )
    out = set_summary(df).set_index("order")
    assert out.loc["attention", ["instances", "rows"]].tolist() == [2, 2]
    # gradient: instance 0 sooner (1 < 3), instance 1 sooner (5 < never)
    assert out.loc["gradient", "vs_attention_sooner_share"] == 1.0
    assert out.loc["attention", "vs_attention_same_share"] == 1.0
    assert out.loc["attention", "never_flips"] == 1
    assert out.loc["attention", "median_fraction_never_as_1"] == pytest.approx(0.65)


def test_set_summary_counts_random_draws_as_rows():
    nan = float("nan")
    df = pd.DataFrame(
        {
            "encoder": ["e"] * 4,
            "id": [0, 0, 0, 1],
            "order": ["random", "random", "random", "random"],
            "draw": [0, 1, 2, 0],
            "flipped": [True, False, True, True],
            "n_removed": [2, nan, 4, 1],
            "fraction_removed": [0.5, nan, 1.0, 0.2],
            "mass_removed": [0.5, nan, 1.0, 0.1],
        }
    )
    out = set_summary(df).iloc[0]
    # 2 instances, 4 rows; one row never flips: 1/4; median of 0.5, 1.0, 0.2 = 0.5
    assert (out.instances, out.rows, out.never_flips, out.never_flips_share) == (2, 4, 1, 0.25)
    assert out.median_fraction_removed == 0.5


def test_instance_fields():
    inst = HandBuilt().instance(H4, A4, i=7)
    assert instance_fields(inst) == {
        "id": 7,
        "label": 1,
        "prediction": 1,
        "n_items": 4,
        "max_attention": pytest.approx(0.4),
    }
