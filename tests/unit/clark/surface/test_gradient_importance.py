import numpy as np
import pytest
import torch
from transformers.models.bert import modeling_bert

from analysis.clark.surface import gradient_importance as gi
from analysis.clark.surface import mlm_head as mh
from analysis.clark.surface import mlm_head_fit as mf
from analysis.core.extraction import encode_records
from analysis.core.models import TINY, load_tokenizer


@pytest.fixture(scope="module")
def tiny():
    model, info = mh.load_mlm(TINY, device="cpu")
    tok = load_tokenizer(TINY)
    recs = [
        {"id": "a", "words": [["the", "cat", "sat", "on", "the", "mat", "."], ["it", "was", "happy", ",", "too", "."]]},
        {"id": "b", "words": [["dogs", "bark", "."], ["birds", "sing", "loudly", "today", "."]]},
    ]
    items, _ = encode_records(tok, recs, max_len=64)
    return model, info, tok, items


def test_tiny_model_has_no_trained_head(tiny):
    _, info, _, _ = tiny
    assert info["pretrained_head"] is False and info["missing_head_keys"]


def test_head_keys_missing_ignores_encoder_and_tied_weights():
    class M:
        base_model_prefix = "bert"
        _tied_weights_keys = {"cls.decoder.weight": "bert.emb.weight", "cls.decoder.bias": "cls.bias"}

    assert mh.head_keys_missing(M(), ["bert.pooler.w", "cls.decoder.weight"]) == []
    assert mh.head_keys_missing(M(), ["cls.decoder.bias", "cls.bias"]) == ["cls.bias", "cls.decoder.bias"]


def test_bert_mask_is_seeded_and_skips_special_tokens():
    ids = list(range(100, 140))
    kinds = "C" + "O" * 18 + "S" + "O" * 19 + "S"
    a = mh.bert_mask(ids, kinds, np.random.default_rng(5), 1000, 7, 0.15)
    b = mh.bert_mask(ids, kinds, np.random.default_rng(5), 1000, 7, 0.15)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    masked, pos, tgt = a
    assert len(pos) == round(0.15 * 37)
    assert all(kinds[p] == "O" for p in pos)
    np.testing.assert_array_equal(tgt, np.asarray(ids)[pos])
    unchanged = np.setdiff1d(np.arange(len(ids)), pos)
    np.testing.assert_array_equal(masked[unchanged], np.asarray(ids)[unchanged])


def _perturbed_eager(layer, delta):
    """eager_attention_forward with ``delta`` added to the post-softmax weights of ``layer``."""

    def f(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs):
        scaling = query.size(-1) ** -0.5 if scaling is None else scaling
        w = torch.matmul(query, key.transpose(2, 3)) * scaling
        if attention_mask is not None:
            w = w + attention_mask
        w = torch.nn.functional.softmax(w, dim=-1)
        if module.layer_idx == layer:
            w = w + delta
        return torch.matmul(w, value).transpose(1, 2).contiguous(), w

    return f


def test_attention_gradients_match_finite_differences(tiny, monkeypatch):
    model, _, tok, items = tiny
    model = model.double()
    batch, masks, _ = next(mh.masked_batches(items, tok, seed=0, prob=0.3, batch_size=2, device="cpu"))
    for p in model.parameters():
        p.requires_grad_(True)
    loss, atts, grads = gi.attention_gradients(model, batch, masks)
    assert len(grads) == 2 and all(g.shape == a.shape for g, a in zip(grads, atts))
    rng = torch.Generator().manual_seed(0)
    eps = 1e-6
    for layer in range(2):
        direction = torch.randn(atts[layer].shape, generator=rng, dtype=torch.float64)
        direction *= batch["attention_mask"][:, None, None, :]  # real key columns only
        values = []
        for sign in (1, -1):
            monkeypatch.setattr(
                modeling_bert, "eager_attention_forward", _perturbed_eager(layer, sign * eps * direction)
            )
            with torch.no_grad():
                values.append(gi.masked_lm_loss(model, batch, masks)[0].item())
        monkeypatch.undo()
        fd = (values[0] - values[1]) / (2 * eps)
        analytic = (grads[layer] * direction).sum().item()
        assert fd == pytest.approx(analytic, rel=1e-5, abs=1e-8)
        assert abs(analytic) > 1e-6
    # one single weight: the largest gradient of the last layer
    g = grads[1]
    idx = np.unravel_index(int(g.abs().argmax()), g.shape)
    one = torch.zeros_like(g)
    one[idx] = 1.0
    values = []
    for sign in (1, -1):
        monkeypatch.setattr(modeling_bert, "eager_attention_forward", _perturbed_eager(1, sign * eps * one))
        with torch.no_grad():
            values.append(gi.masked_lm_loss(model, batch, masks)[0].item())
    monkeypatch.undo()
    assert (values[0] - values[1]) / (2 * eps) == pytest.approx(g[idx].item(), rel=1e-5)
    with torch.no_grad():
        assert gi.masked_lm_loss(model, batch, masks)[0].item() == pytest.approx(loss.item())
    model.float()


def test_accumulate_groups_by_attended_token(tiny):
    model, _, tok, items = tiny
    per_layer, per_head, counts = gi.accumulate(model, tok, items, seed=0, prob=0.3, batch_size=1)
    assert counts["segments"] == 2
    assert set(per_layer.attended) == set(gi.GROUPS)
    n_weights = sum(it["n"] ** 2 for it in items) * 4  # 4 heads
    assert per_head[per_head.layer == 1].n_weights.sum() == n_weights
    assert (per_layer.mean_abs_grad > 0).all()
    # mean attention per weight, weighted by counts, is 1 / n per row on average
    again, _, _ = gi.accumulate(model, tok, items, seed=0, prob=0.3, batch_size=2)
    np.testing.assert_allclose(per_layer.mean_abs_grad, again.mean_abs_grad, rtol=1e-4)


def test_fit_head_lowers_heldout_loss(tiny):
    model, _, tok, items = tiny
    h, t, _ = mf.masked_hidden(model, items * 4, tok, seed=0, prob=0.3)
    enc_before = {k: v.clone() for k, v in model.base_model.state_dict().items()}
    before = mf.evaluate_head(model, h, t)
    fit = mf.HeadFit(seed=0, mask_prob=0.3, epochs=3, lr=1e-2, batch_size=8)
    curve = mf.fit_head(model, h, t, fit, heldout=(h, t))
    assert curve[-1]["heldout_loss"] < before["loss"]
    # the encoder (and the decoder weight tied to its input embeddings) is never changed
    for k, v in model.base_model.state_dict().items():
        assert torch.equal(v, enc_before[k]), k
    state = mh.head_state(model)
    assert state and not any(k.endswith("decoder.weight") for k in state)
    fresh, _ = mh.load_mlm(TINY, device="cpu")
    fresh.load_state_dict(state, strict=False)  # the state is named as in the model
    assert mf.evaluate_head(fresh, h, t)["loss"] == pytest.approx(mf.evaluate_head(model, h, t)["loss"])


def test_score_or_fit_head_and_load_it_back(tiny, tmp_path):
    model, info, tok, items = tiny
    fit = mf.HeadFit(seed=0, mask_prob=0.3, epochs=2, lr=1e-2, batch_size=8)
    rows, curve, state = mf.score_or_fit_head(model, info, tok, items * 3, items, fit)
    assert [(r["head"], r["split"]) for r in rows] == [
        ("initial (unigram bias)", "held-out"),
        ("fitted on frozen encoder", "train"),
        ("fitted on frozen encoder", "held-out"),
    ]
    assert len(curve) == 2 and state and not any(k.endswith("decoder.weight") for k in state)
    torch.save(state, tmp_path / "head.pt")
    fresh, fresh_info = mh.load_mlm(TINY, device="cpu")
    mh.load_fitted_head(fresh, fresh_info, {"pretrained_head": False}, tmp_path / "head.pt")
    h, t, _ = mf.masked_hidden(model, items, tok, seed=1, prob=0.3)
    assert mf.evaluate_head(fresh, h, t)["loss"] == pytest.approx(rows[-1]["loss"])
    with pytest.raises(RuntimeError, match="disagrees"):
        mh.load_fitted_head(fresh, fresh_info, {"pretrained_head": True}, tmp_path / "head.pt")
    torch.save({"not.a.key": torch.zeros(1)}, tmp_path / "bad.pt")
    with pytest.raises(RuntimeError, match="does not fit"):
        mh.load_fitted_head(fresh, fresh_info, {"pretrained_head": False}, tmp_path / "bad.pt")
    # a checkpoint's own head is only scored
    rows, curve, state = mf.score_or_fit_head(model, {"pretrained_head": True}, tok, items, items, fit)
    assert [(r["head"], r["split"]) for r in rows] == [("pre-trained", "held-out")] and curve is None and state == {}


def test_head_description_takes_the_last_held_out_row():
    import pandas as pd

    table = pd.DataFrame(
        {
            "head": ["initial (unigram bias)", "fitted on frozen encoder", "fitted on frozen encoder"],
            "split": ["held-out", "train", "held-out"],
            "loss": [9.0, 6.0, 7.123],
            "accuracy": [0.01, 0.2, 0.1234],
        }
    )
    text = mh.head_description({"head_source": "fitted"}, table)
    assert text == "fitted; held-out MLM loss 7.12, accuracy 12.3%"


def test_check_resegmented():
    segs = [{"id": "a", "words": [["x"]]}, {"id": "b", "words": [["y"]]}]
    mf.check_resegmented(segs, [{"id": "b", "words": [["y"]]}], "wiki.jsonl", "wiki.test.raw")
    with pytest.raises(ValueError, match="segment b does not match"):
        mf.check_resegmented(segs, [{"id": "b", "words": [["z"]]}], "wiki.jsonl", "wiki.test.raw")
    with pytest.raises(ValueError, match="segment c"):
        mf.check_resegmented(segs, [{"id": "c", "words": [["y"]]}], "wiki.jsonl", "wiki.test.raw")


def test_plot_gradient_importance_skips_empty_groups():
    import pandas as pd

    from analysis.shared.plots import close

    per_layer = pd.DataFrame(
        {
            "layer": [1, 1, 2, 2],
            "attended": ["sep", "cls", "sep", "cls"],
            "mean_abs_grad": [1e-3, 1.0, 1e-4, 1.0],
            "mean_attention": [0.5, 0.1, 0.6, 0.1],
            "n_weights": [10, 0, 10, 0],
        }
    )
    fig = gi.plot_gradient_importance(per_layer, "title", {"sep": "[SEP]"})
    assert [t.get_text() for t in fig.axes[1].get_legend().get_texts()] == ["[SEP]"]
    close(fig)


@pytest.mark.parametrize(
    "name,overrides",
    [("modernbert", {}), ("bert", {"tie_word_embeddings": False}), ("bert", {})],
    ids=["modernbert-no-biases", "bert-untied-decoder", "bert-tied-decoder"],
)
def test_init_head_sets_what_the_family_has(tmp_path, name, overrides):
    """Linear layers and norms without biases (ModernBERT), a decoder tied to the input embeddings
    (kept) or untied (drawn afresh): each head module gets what it has, nothing else is touched."""
    from helpers.families import build_family

    model, info = mh.load_mlm(str(build_family(name, tmp_path / name, "bare", **overrides)), device="cpu")
    assert not info["pretrained_head"]
    embeddings = model.get_input_embeddings().weight.clone()
    vocab = embeddings.shape[0]
    targets = torch.tensor([5, 5, 5, 7])
    params = mf.init_head(model, seed=0, targets=targets)
    own = {p.data_ptr() for p in params}
    head = list(mh.head_module(model).modules())
    norms = [m for m in head if mf.is_norm(m)]
    linears = [m for m in head if isinstance(m, torch.nn.Linear)]
    assert norms and linears
    if name == "modernbert":  # the case: no bias on the head's dense layer nor on its norm
        assert all(m.bias is None for m in norms) and linears[0].bias is None
    for m in norms:
        assert torch.equal(m.weight, torch.ones_like(m.weight))
        assert m.bias is None or not m.bias.any()
    decoder = model.get_output_embeddings()
    tied = decoder.weight.data_ptr() == model.get_input_embeddings().weight.data_ptr()
    assert tied == (overrides.get("tie_word_embeddings", True)) and (decoder.weight.data_ptr() in own) != tied
    for m in linears:
        if m.weight.data_ptr() in own:
            assert abs(m.weight.std().item() - 0.02) < 0.005
    assert torch.equal(model.get_input_embeddings().weight, embeddings)  # the encoder's embeddings kept
    scales = {m.weight.data_ptr() for m in norms}
    biases = [p for p in params if p.ndim == 1 and p.shape[0] != vocab and p.data_ptr() not in scales]
    assert all(not p.any() for p in biases) and (name == "modernbert") == (not biases)
    unigram = [p for p in params if p.ndim == 1 and p.shape[0] == vocab]
    assert unigram and all(p[5] > p[7] > p[0] for p in unigram)  # log add-one unigram frequencies
    assert all(p.requires_grad is False for p in model.parameters())


def test_is_norm_knows_norms_by_kind_not_by_bias():
    class DebertaLayerNorm(torch.nn.Module):  # a family's own norm class
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(4))

    assert mf.is_norm(torch.nn.LayerNorm(4, bias=False)) and mf.is_norm(torch.nn.RMSNorm(4))
    assert mf.is_norm(DebertaLayerNorm())
    assert not mf.is_norm(torch.nn.Linear(4, 4, bias=False)) and not mf.is_norm(torch.nn.Embedding(4, 4))
