"""Beyond the papers: rollout and flow by hand (last layer and per layer), the importance
targets (blank-out, input gradient, deletion) by hand, the head gates' gradient against a
finite difference, pruning, the per-layer comparison, and determinism."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from analysis.beyond_papers.head_compare import pruning_summary, spearman_by_task, with_disabled
from analysis.beyond_papers.head_gates import (
    HeadGates,
    example_losses,
    gated_logits,
    head_importance,
    importance_table,
    normalize_by_layer,
    pruning_steps,
    pruning_table,
)
from analysis.beyond_papers.rollout import (
    attention_flow,
    flows_per_layer,
    layer_scores,
    query_rows,
    residual_attention,
    rollout,
    rollout_per_layer,
)
from analysis.beyond_papers.rollout_compare import blank_id, blank_out, input_gradients, leave_one_out, token_table
from analysis.beyond_papers.rollout_tables import authors_spearman, paired_table, spearman_table, summary_table
from analysis.core.glue.batches import collate, encode
from analysis.core.models import TINY, load_model, shape_of

# 2 layers, 2 heads, 3 tokens (rows = attending token, columns = attended token).
HAND = np.array(
    [
        [  # layer 1: heads average to [[.5 .5 0] [1 0 0] [0 .5 .5]]
            [[1, 0, 0], [1, 0, 0], [0, 0, 1]],
            [[0, 1, 0], [1, 0, 0], [0, 1, 0]],
        ],
        [  # layer 2: heads average to [[0 0 1] [0 1 0] [.5 0 .5]]
            [[0, 0, 1], [0, 1, 0], [0, 0, 1]],
            [[0, 0, 1], [0, 1, 0], [1, 0, 0]],
        ],
    ],
    dtype=float,
)
# A~ = 0.5 mean + 0.5 I (rows already sum to one):
#   A~1 = [[.75 .25 0] [.5 .5 0] [0 .25 .75]]      A~2 = [[.5 0 .5] [0 1 0] [.25 0 .75]]
A1 = [[0.75, 0.25, 0], [0.5, 0.5, 0], [0, 0.25, 0.75]]
A2 = [[0.5, 0, 0.5], [0, 1, 0], [0.25, 0, 0.75]]
# rollout = A~2 @ A~1:
#   row 0 = .5 * [.75 .25 0] + .5 * [0 .25 .75]           = [.375 .25 .375]
#   row 1 = [.5 .5 0]
#   row 2 = .25 * [.75 .25 0] + .75 * [0 .25 .75]         = [.1875 .25 .5625]
ROLLOUT = [[0.375, 0.25, 0.375], [0.5, 0.5, 0], [0.1875, 0.25, 0.5625]]
# flow from (layer 2, token 0): its edges go to (1, 0) with .5 and (1, 2) with .5;
#   to input 0: only (2,0)->(1,0)->(0,0): min(.5, .75)                      = .5
#   to input 1: (2,0)->(1,0)->(0,1): min(.5, .25) + (2,0)->(1,2)->(0,1): min(.5, .25) = .5
#   to input 2: only (2,0)->(1,2)->(0,2): min(.5, .75)                      = .5
# -> [.5 .5 .5], normalised [1/3 1/3 1/3] (rollout gives token 1 less: .25)
# flow from (layer 2, token 2): edges to (1, 0) with .25 and (1, 2) with .75;
#   to input 0: (1,0)->(0,0): min(.25, .75)                                 = .25
#   to input 1: via (1,0): min(.25, .25) + via (1,2): min(.75, .25)         = .5
#   to input 2: via (1,2): min(.75, .75)                                    = .75
# -> [.25 .5 .75], normalised [1/6 1/3 1/2]
FLOW_0, FLOW_2 = [0.5, 0.5, 0.5], [0.25, 0.5, 0.75]


def test_residual_attention_and_rollout_by_hand():
    res = residual_attention(HAND)
    np.testing.assert_allclose(res, [A1, A2])
    np.testing.assert_allclose(rollout(res), ROLLOUT)
    np.testing.assert_allclose(rollout(res).sum(-1), 1.0)
    # r = 0: plain product of the head-averaged maps; r = 1: the identity
    np.testing.assert_allclose(rollout(residual_attention(HAND, 0.0)), HAND[1].mean(0) @ HAND[0].mean(0))
    np.testing.assert_allclose(rollout(residual_attention(HAND, 1.0)), np.eye(3))


def test_attention_flow_by_hand():
    res = residual_attention(HAND)
    np.testing.assert_allclose(attention_flow(res, 0, normalise=False), FLOW_0, atol=1e-6)
    np.testing.assert_allclose(attention_flow(res, 2, normalise=False), FLOW_2, atol=1e-6)
    np.testing.assert_allclose(attention_flow(res, 0), [1 / 3, 1 / 3, 1 / 3], atol=1e-6)
    np.testing.assert_allclose(attention_flow(res, 2), [1 / 6, 1 / 3, 1 / 2], atol=1e-6)
    rows = query_rows(HAND, 0)
    np.testing.assert_allclose(rows["raw"], [0, 0, 1])  # last layer, heads averaged, row 0
    np.testing.assert_allclose(rows["rollout"], ROLLOUT[0])
    np.testing.assert_allclose(rows["flow"], [1 / 3, 1 / 3, 1 / 3], atol=1e-6)


def test_rollout_and_flow_per_layer_by_hand():
    """Layer 1: rollout and flow are A~1 itself; layer 2: the two-layer values above."""
    res = residual_attention(HAND)
    np.testing.assert_allclose(rollout_per_layer(res), [A1, ROLLOUT])
    flows = flows_per_layer(res, [0, 2], normalise=False)
    np.testing.assert_allclose(flows[0], [A1[0], A1[2]], atol=1e-6)
    np.testing.assert_allclose(flows[1], [FLOW_0, FLOW_2], atol=1e-6)
    # from the [CLS]-like row 0, layers 1 and 2 (raw: that layer's heads averaged)
    cls = layer_scores(HAND, 0)
    np.testing.assert_allclose(cls["raw"], [[0.5, 0.5, 0], [0, 0, 1]])
    np.testing.assert_allclose(cls["rollout"], [A1[0], ROLLOUT[0]])
    np.testing.assert_allclose(cls["flow"], [A1[0], [1 / 3, 1 / 3, 1 / 3]], atol=1e-6)
    # the authors' SST-2 protocol: the maximum over every row. Raw layer 1 rows [.5 .5 0]
    # [1 0 0] [0 .5 .5] -> [1 .5 .5]; layer 2 [0 0 1] [0 1 0] [.5 0 .5] -> [.5 1 1]. Flow at
    # layer 2 from row 1: (2,1) -> (1,1) carries 1, then .5 / .5 to inputs 0 / 1 -> [.5 .5 0];
    # with rows 0 [1/3 1/3 1/3] and 2 [1/6 1/3 1/2]: max [.5 .5 .5]
    every = layer_scores(HAND, None)
    np.testing.assert_allclose(every["raw"], [[1, 0.5, 0.5], [0.5, 1, 1]])
    np.testing.assert_allclose(every["rollout"], [[0.75, 0.5, 0.75], [0.5, 0.5, 0.5625]])
    np.testing.assert_allclose(every["flow"], [[0.75, 0.5, 0.75], [0.5, 0.5, 0.5]], atol=1e-6)
    assert set(layer_scores(HAND, 0, flow=False)) == {"raw", "rollout"}


class CountingModel(torch.nn.Module):
    """logit 1 = number of tokens with id 5 (padding masked), logit 0 = 0; records its inputs."""

    def __init__(self):
        super().__init__()
        self.dummy = torch.nn.Parameter(torch.zeros(1))
        self.seen = []

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        self.seen.append(input_ids.clone())
        ones = ((input_ids == 5) * attention_mask).sum(-1).double()
        return SimpleNamespace(logits=torch.stack([torch.zeros_like(ones), ones], -1))


def test_blank_out_keeps_the_length_and_replaces_only_token_t():
    model = CountingModel()
    item = {"id": "x", "input_ids": [101, 5, 6, 5, 102], "token_type_ids": [0] * 5, "label": 1}
    got = blank_out(model, item, [1, 2, 3], pad_id=0, target=1, replace_id=103)
    # P(1) = sigmoid(2) with both 5s; blanking one leaves sigmoid(1); blanking the 6 changes nothing
    drop = 1 / (1 + np.exp(-2)) - 1 / (1 + np.exp(-1))
    np.testing.assert_allclose(got, [drop, 0, drop])
    (ids,) = model.seen
    assert ids.shape == (4, 5)  # the input and three variants, none shorter
    for k, p in enumerate([1, 2, 3]):
        expected = list(item["input_ids"])
        expected[p] = 103
        assert ids[k + 1].tolist() == expected
    # label 0: the same changes of probability, in absolute value (the authors' abs)
    np.testing.assert_allclose(blank_out(model, item, [1, 2, 3], 0, 0, 103), [drop, 0, drop])


def test_blank_id_comes_from_the_tokenizer(tokenizer):
    assert blank_id(tokenizer) == tokenizer.mask_token_id
    assert blank_id(SimpleNamespace(mask_token_id=None, unk_token_id=7)) == 7
    with pytest.raises(ValueError, match="neither a mask"):
        blank_id(SimpleNamespace(mask_token_id=None, unk_token_id=None))


class SquareModel(torch.nn.Module):
    """Embeddings id 1 -> [1, 0], 2 -> [0, 1], 3 -> [1, 1] (0: padding); logit c = sum over
    the unmasked tokens of (e_t . w_c)^2 / 2 with w_0 = [2, 1], w_1 = [1, 2]: d logit c / d e_t
    = (e_t . w_c) w_c, summed over the dimensions (e_t . w_c) * 3."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(4, 2)
        with torch.no_grad():
            self.emb.weight.copy_(torch.tensor([[0.0, 0], [1, 0], [0, 1], [1, 1]]))
        self.w = torch.tensor([[2.0, 1], [1, 2]])

    def get_input_embeddings(self):
        return self.emb

    def forward(self, inputs_embeds, attention_mask, token_type_ids=None):
        proj = inputs_embeds @ self.w.T  # (B, n, classes)
        return SimpleNamespace(logits=(proj**2 / 2 * attention_mask[..., None]).sum(1))


def test_input_gradient_by_hand():
    items = [
        {"id": "a", "input_ids": [1, 2, 3], "label": 1},  # e . w_1 = 1, 2, 3 -> 3, 6, 9
        {"id": "b", "input_ids": [3, 1], "label": 0},  # e . w_0 = 3, 2 -> 9, 6
    ]
    for batch_size in (1, 2):  # padding in the batch changes nothing
        grads = input_gradients(SquareModel(), items, pad_id=0, batch_size=batch_size)
        np.testing.assert_allclose(grads[0], [3, 6, 9])
        np.testing.assert_allclose(grads[1], [9, 6])


def test_input_gradient_of_a_real_model_matches_autograd(clf, items, tokenizer):
    grads = input_gradients(clf, items, tokenizer.pad_token_id, batch_size=3)
    item = items[2]
    embeds = clf.get_input_embeddings()(torch.tensor([item["input_ids"]])).detach().requires_grad_(True)
    logits = clf(inputs_embeds=embeds, token_type_ids=torch.tensor([item["token_type_ids"]])).logits
    logits[0, item["label"]].backward()
    np.testing.assert_allclose(grads[2], embeds.grad[0].sum(-1).abs().numpy(), atol=1e-10)


def test_flow_of_one_layer_is_the_attention_row():
    """One layer: the only path to input j is the edge (1, q) -> (0, j), so flow = A~[q]."""
    res = residual_attention(HAND[:1])
    np.testing.assert_allclose(attention_flow(res, 1, normalise=False), A1[1], atol=1e-6)


@pytest.fixture(scope="module")
def clf():
    torch.manual_seed(0)
    model = load_model(TINY, head="classification", device="cpu", num_labels=2)
    with torch.no_grad():  # sharper attention, larger logits than the random model's
        for layer in model.bert.encoder.layer:
            layer.attention.self.query.weight.mul_(20)
            layer.attention.self.key.weight.mul_(20)
        model.classifier.weight.mul_(30)
    return model.double()


@pytest.fixture(scope="module")
def items(tokenizer):
    records = [
        {"id": "a", "words": [["the", "cat", "sat", "on", "the", "mat"]], "meta": {"label": 1}},
        {"id": "b", "words": [["a", "dog", "barked"]], "meta": {"label": 0}},
        {"id": "c", "words": [["birds", "sing", "at", "dawn", "every", "day", "."]], "meta": {"label": 1}},
    ]
    return encode(tokenizer, records, 32)[0]


def loss_at(model, batch, gates):
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    with HeadGates(model) as hg:
        hg.set(gates)
        return example_losses(model(**inputs).logits, batch["labels"])


def test_gate_gradient_equals_finite_difference(clf, items, tokenizer):
    batch = collate(items, tokenizer.pad_token_id)
    L, H = shape_of(clf)
    abs_mean, signed_mean = head_importance(clf, [batch])
    again = head_importance(
        clf, [collate(items[:2], tokenizer.pad_token_id), collate(items[2:], tokenizer.pad_token_id)]
    )
    np.testing.assert_allclose(again[0], abs_mean, rtol=1e-10)  # per-example: batching does not matter
    eps = 1e-5
    for layer, head in [(0, 0), (0, 3), (1, 2)]:
        up, down = torch.ones((3, L, H), dtype=torch.float64), torch.ones((3, L, H), dtype=torch.float64)
        up[:, layer, head] += eps
        down[:, layer, head] -= eps
        with torch.no_grad():
            per_example = (loss_at(clf, batch, up) - loss_at(clf, batch, down)) / (2 * eps)
        assert abs_mean[layer, head] == pytest.approx(per_example.abs().mean().item(), rel=1e-5, abs=1e-9)
        assert signed_mean[layer, head] == pytest.approx(per_example.mean().item(), rel=1e-5, abs=1e-9)
    assert (abs_mean > 0).all()


def test_per_token_importance_as_the_authors_code(clf, items, tokenizer):
    """abs_per="token": a gate per token; the signed per-example gradient is the sum of the
    tokens' (so the signed means agree), and |sum| <= sum of |.| (triangle inequality)."""
    batch = collate(items, tokenizer.pad_token_id)
    n_tokens = int(batch["attention_mask"].sum())
    by_example, signed = head_importance(clf, [batch])
    by_token, signed_t = head_importance(clf, [batch], abs_per="token")
    np.testing.assert_allclose(signed_t, signed, rtol=1e-6, atol=1e-12)  # float32 gates: their gradients too
    assert (by_token * n_tokens >= by_example * len(items) - 1e-12).all()
    split = [collate(items[:1], tokenizer.pad_token_id), collate(items[1:], tokenizer.pad_token_id)]
    np.testing.assert_allclose(head_importance(clf, split, abs_per="token")[0], by_token, rtol=1e-10)
    # one token's gate by finite differences: example 0, token 2, layer 2, head 3
    L, H = shape_of(clf)
    n = batch["input_ids"].shape[1]
    eps, grads = 1e-5, []
    for sign in (1, -1):
        gates = torch.ones((len(items), n, L, H), dtype=torch.float64)
        gates[0, 2, 1, 2] += sign * eps
        with torch.no_grad():
            grads.append(loss_at(clf, batch, gates)[0].item())
    g = (grads[0] - grads[1]) / (2 * eps)
    gates = torch.ones((len(items), n, L, H), dtype=torch.float64, requires_grad=True)
    (auto,) = torch.autograd.grad(loss_at(clf, batch, gates).sum(), gates)
    assert auto[0, 2, 1, 2].item() == pytest.approx(g, rel=1e-5, abs=1e-9)
    with pytest.raises(ValueError, match="abs_per"):
        head_importance(clf, [batch], abs_per="sentence")


def test_normalize_by_layer_by_hand():
    # layer 1: (3, 4) has L2 norm 5; layer 2 all zero stays zero
    out = normalize_by_layer(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    t = importance_table("SST-2", np.array([[3.0, 4.0], [1.0, 0.0]]), np.zeros((2, 2)), 5, normalize=True)
    assert t.importance.tolist() == pytest.approx([0.6, 0.8, 1.0, 0.0])
    assert t.importance_raw.tolist() == [3.0, 4.0, 1.0, 0.0]


def test_gate_zero_equals_zeroed_value_projection(clf, items, tokenizer):
    """A closed gate removes the head's output: the same as zeroing its value vectors."""
    batch = collate(items, tokenizer.pad_token_id)
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    L, H = shape_of(clf)
    keep = np.ones((L, H), bool)
    with torch.no_grad():
        np.testing.assert_allclose(gated_logits(clf, [batch], keep), clf(**inputs).logits.numpy(), atol=1e-12)
    keep[1, 2] = False
    gated = gated_logits(clf, [batch], keep)
    value = clf.bert.encoder.layer[1].attention.self.value
    d = value.weight.shape[0] // H
    saved = value.weight.detach().clone(), value.bias.detach().clone()
    with torch.no_grad():
        value.weight[2 * d : 3 * d] = 0
        value.bias[2 * d : 3 * d] = 0
        zeroed = clf(**inputs).logits.numpy()
        value.weight.copy_(saved[0])
        value.bias.copy_(saved[1])
    np.testing.assert_allclose(gated, zeroed, atol=1e-10)
    assert not np.allclose(gated, clf(**inputs).logits.detach().numpy())


def test_pruning_steps_and_curve(clf, items, tokenizer):
    assert pruning_steps(72, 0.1) == [0, 7, 14, 22, 29, 36, 43, 50, 58, 65, 72]
    assert pruning_steps(8, 0.25) == [0, 2, 4, 6, 8]
    batch = collate(items, tokenizer.pad_token_id)
    gold = batch["labels"].tolist()
    importance = np.arange(8, dtype=float).reshape(2, 4)
    curves = pruning_table(clf, [batch], gold, "SST-2", importance, 0.25, n_random=2, seed=0)
    again = pruning_table(clf, [batch], gold, "SST-2", importance, 0.25, n_random=2, seed=0)
    pd.testing.assert_frame_equal(curves, again)  # deterministic
    assert set(curves.order) == {"importance", "random"} and curves.draw.max() == 2
    imp = curves[curves.order == "importance"]
    assert imp.pruned.tolist() == [0, 2, 4, 6, 8]
    # the first step removes flat heads 0 and 1 (lowest importance) = layer 1, heads 1-2
    keep = np.ones((2, 4), bool)
    keep[0, :2] = False
    pred = gated_logits(clf, [batch], keep).argmax(-1)
    assert imp.score.iloc[1] == pytest.approx(np.mean(pred == np.array(gold)))
    summary = pruning_summary(curves)
    assert set(summary.order) == {"importance", "random"}


def test_leave_one_out_by_hand(clf, items, tokenizer):
    item = items[0]
    drops = leave_one_out(clf, item, [1, 3], tokenizer.pad_token_id, target=1)
    with torch.no_grad():
        full = torch.softmax(clf(input_ids=torch.tensor([item["input_ids"]])).logits, -1)[0, 1]
        for k, p in enumerate([1, 3]):
            ids = item["input_ids"][:p] + item["input_ids"][p + 1 :]
            types = item["token_type_ids"][:p] + item["token_type_ids"][p + 1 :]
            out = clf(input_ids=torch.tensor([ids]), token_type_ids=torch.tensor([types])).logits
            assert drops[k] == pytest.approx((full - torch.softmax(out, -1)[0, 1]).item(), abs=1e-10)


def test_token_table_is_deterministic_and_skips_special_tokens(clf, items, tokenizer):
    targets = ("gradient", "blankout", "deletion")
    tokens = token_table(clf, tokenizer, items, {"a", "c"}, 0.5, 2, targets, "cls_row")
    again = token_table(clf, tokenizer, items, {"a", "c"}, 0.5, 3, targets, "cls_row")
    pd.testing.assert_frame_equal(tokens, again, atol=1e-10)
    n_layers = shape_of(clf)[0]
    assert sorted(tokens.layer.unique()) == list(range(1, n_layers + 1))
    special = tokens[tokens.special]
    assert set(special.token) == {tokenizer.cls_token, tokenizer.sep_token}
    assert not special.scored.any() and tokens[~tokens.special].scored.all()
    assert special.blankout.isna().all() and special.deletion.isna().all() and special.gradient.notna().all()
    assert tokens[~tokens.special][list(targets)].notna().all().all()
    assert tokens[tokens.id == "b"].flow.isna().all() and tokens[tokens.id == "a"].flow.notna().all()
    for _, g in tokens.groupby(["id", "layer"]):
        np.testing.assert_allclose(g.rollout.sum(), 1.0)
        np.testing.assert_allclose(g.raw.sum(), 1.0)
        if g.flow.notna().all():
            np.testing.assert_allclose(g.flow.sum(), 1.0, atol=1e-6)
    # the last layer's rows are the [CLS] rows of query_rows; the targets repeat on every layer
    a = tokens[tokens.id == "a"]
    last = a[a.layer == n_layers]
    maps = clf(input_ids=torch.tensor([items[0]["input_ids"]]), output_attentions=True).attentions
    rows = query_rows(torch.stack(maps, 1)[0].detach().numpy(), 0)
    np.testing.assert_allclose(last.rollout, rows["rollout"], atol=1e-10)
    np.testing.assert_allclose(last.flow, rows["flow"], atol=1e-6)
    np.testing.assert_allclose(a[a.layer == 1].blankout, last.blankout)
    per_input = spearman_table(tokens)
    assert set(per_input.target) == set(targets) and set(per_input.layer) == set(range(1, n_layers + 1))
    assert set(per_input[per_input.id == "b"].method) == {"raw", "rollout"}  # no flow for b
    summary = summary_table(per_input, 2000, 0).set_index(["subset", "target", "layer", "method"])
    assert summary.loc[("common", "gradient", n_layers, "flow"), "inputs"] == 2
    assert summary.loc[("common", "gradient", 1, "raw"), "inputs"] == 2  # on flow's inputs
    assert summary.loc[("all", "gradient", 1, "raw"), "inputs"] == 3
    assert ("all", "gradient", 1, "flow") not in summary.index
    # the authors' SST-2 protocol: every position scored, special tokens blanked too
    every = token_table(clf, tokenizer, items, {"b"}, 0.5, 2, ("blankout",), "authors_sst2")
    assert every.scored.all() and every.blankout.notna().all() and "gradient" not in every
    assert every[every.id == "b"].flow.notna().all()
    with pytest.raises(ValueError, match="targets"):
        token_table(clf, tokenizer, items, set(), 0.5, 2, ("erasure",))


def test_spearman_and_summary_by_hand():
    tokens = pd.DataFrame(
        {
            "id": ["x"] * 5 + ["y"] * 4,
            "layer": 1,
            "special": [True, False, False, False, True, True, False, False, False],
            "raw": [0.5, 0.1, 0.2, 0.3, 0.0, 0.2, 0.3, 0.2, 0.1],
            "rollout": [0.4, 0.3, 0.2, 0.1, 0.0, 0.2, 0.1, 0.2, 0.3],
            "flow": [np.nan] * 5 + [0.2, 0.1, 0.1, 0.1],
            "gradient": [9.0, 0.01, 0.02, 0.05, 9.0, 9.0, 0.1, 0.2, 0.3],
            "blankout": [np.nan, 0.3, 0.2, 0.1, np.nan, np.nan, 0.0, 0.0, 0.0],
        }
    )
    tokens["scored"] = ~tokens.special
    two = pd.concat([tokens, tokens.assign(layer=2, raw=tokens.rollout)], ignore_index=True)
    per_input = spearman_table(two).set_index(["id", "layer", "method", "target"]).spearman
    assert per_input["x", 1, "raw", "gradient"] == pytest.approx(1.0)  # same order as the gradient
    assert per_input["x", 1, "rollout", "gradient"] == pytest.approx(-1.0)
    assert per_input["x", 1, "raw", "blankout"] == pytest.approx(-1.0)
    assert per_input["y", 1, "raw", "gradient"] == pytest.approx(-1.0)
    assert per_input["y", 1, "rollout", "gradient"] == pytest.approx(1.0)
    assert per_input["x", 2, "raw", "gradient"] == pytest.approx(-1.0)  # layer 2's raw = rollout
    assert np.isnan(per_input["y", 1, "flow", "gradient"])  # constant flow
    assert np.isnan(per_input["y", 1, "raw", "blankout"])  # constant blank-out
    assert ("x", 1, "flow", "gradient") not in per_input.index  # flow not computed for x
    authors = spearman_table(two).set_index(["id", "layer", "method", "target"]).spearman_authors
    # constant flow 0.2, 0.1, 0.1, 0.1 over the scored tokens 0.1, 0.1, 0.1: dense ranks 0, 0, 0 vs gradient
    # 0.1, 0.2, 0.3: 0, 1, 2; d = 0, -1, -2: 1 - 6 x 5 / (3 x 8) = -0.25, finite, as in their SST-2 script
    assert authors["y", 1, "flow", "gradient"] == pytest.approx(-0.25)
    assert authors["x", 1, "raw", "gradient"] == pytest.approx(1.0)
    table = spearman_table(two)
    summary = summary_table(table, 2000, 0).query("subset == 'all' or method == 'flow'")
    summary = summary.set_index(["target", "layer", "method"])
    row = summary.loc["gradient", 1, "raw"]
    assert row["mean"] == pytest.approx(0.0) and row["share_positive"] == 0.5
    assert (row["mean_ci95_low"], row["mean_ci95_high"]) == pytest.approx((-1.0, 1.0))  # resamples of +1 / -1
    assert summary.loc[("gradient", 1, "flow"), "undefined"] == 1
    assert summary.loc[("blankout", 1, "raw"), "inputs"] == 2 and summary.loc[("blankout", 1, "raw"), "undefined"] == 1
    assert list(summary.index.get_level_values(0).unique()) == ["gradient", "blankout"]
    paired = paired_table(table, 2000, 0).set_index(["target", "layer", "first", "second"])
    # rollout - raw at layer 1, gradient: x -2, y +2 -> mean 0; at layer 2 they are equal
    assert paired.loc[("gradient", 1, "rollout", "raw"), "mean_difference"] == pytest.approx(0.0)
    assert paired.loc[("gradient", 2, "rollout", "raw"), "mean_difference"] == pytest.approx(0.0)
    assert paired.loc[("gradient", 1, "rollout", "raw"), "share_first_higher"] == 0.5


def test_importance_against_disabled_heads_by_hand():
    importance = pd.DataFrame(
        {
            "task": "SST-2",
            "layer": [1, 1, 2, 2],
            "head": [1, 2, 1, 2],
            "importance": [0.4, 0.1, 0.3, 0.2],
            "n_examples": 10,
        }
    )
    disabled = pd.DataFrame(
        {
            "task": "SST-2",
            "metric": "accuracy",
            "scope": ["head"] * 4 + ["layer"],
            "layer": [1, 1, 2, 2, 1],
            "head": [1, 2, 1, 2, np.nan],
            "change": [-0.3, 0.0, -0.1, -0.2, -0.5],
            "changed": [0.3, 0.0, 0.2, 0.1, 0.5],
            "n_examples": 10,
        }
    )
    merged = with_disabled(importance, disabled)
    rho = spearman_by_task(merged).iloc[0]
    # drops (0.3, 0, 0.1, 0.2) rank as importance (0.4, 0.1, 0.3, 0.2) except heads 2-1 / 2-2 swapped:
    # ranks 4 1 3 2 vs 4 1 2 3 -> d^2 = 2, rho = 1 - 6 * 2 / (4 * 15) = 0.8
    assert rho.spearman_vs_score_drop == pytest.approx(0.8)
    assert rho.spearman_vs_changed_predictions == pytest.approx(1.0)
    assert rho.heads_with_score_change == 3
    flat = spearman_by_task(with_disabled(importance, disabled.assign(change=0.0))).iloc[0]
    assert np.isnan(flat.spearman_vs_score_drop) and flat.heads_with_score_change == 0
    with pytest.raises(ValueError, match="no disabled-head score"):
        with_disabled(importance.assign(task="RTE"), disabled)


def test_the_authors_spearman_formula_by_hand():
    # scores 1, 2, 2, 3 vs 1, 2, 3, 4: dense ranks 0, 1, 1, 2 and 0, 1, 2, 3, d = 0, 0, -1, -1,
    # 1 - 6 x 2 / (4 x 15) = 0.8; the tie-corrected Spearman (Pearson of the average ranks
    # 1, 2.5, 2.5, 4 and 1..4) is 4.5 / sqrt(4.5 x 5) = 0.9487
    from analysis.core.glue.metrics import spearman

    assert authors_spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(0.8)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / np.sqrt(22.5))
    # and above it: 1, 1, 1, 2 vs 4, 3, 2, 1: dense ranks 0, 0, 0, 1 and 3, 2, 1, 0, d = -3, -2, -1, 1,
    # 1 - 6 x 15 / 60 = -0.5; tie-corrected: -3 / sqrt(3 x 5) = -0.7746
    assert authors_spearman([1, 1, 1, 2], [4, 3, 2, 1]) == pytest.approx(-0.5)
    assert spearman([1, 1, 1, 2], [4, 3, 2, 1]) == pytest.approx(-3 / np.sqrt(15))
    # without ties both are Spearman's
    assert authors_spearman([3, 1, 2], [30, 10, 20]) == pytest.approx(1.0) == spearman([3, 1, 2], [30, 10, 20])
