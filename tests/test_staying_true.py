"""Tutek & Snajder 2020 (rules staying_true_*): the regularisers' extra terms by hand, the
CONCAT / RESIDUAL states, the model-based adversary's objective, and deterministic
permutation and single-token runs, on tiny models built here."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from analysis.explanation.explainer import Explainer
from analysis.explanation.finetuned_transformer import NAME
from analysis.explanation.sst2 import read_sst2
from analysis.explanation.staying_true import (
    VARIANTS,
    RegularisedLSTM,
    StayingTrueConfig,
    load_variants,
    mask_tokens,
    mlm_term,
    regulariser,
    train_variants,
    tying_term,
)
from analysis.explanation.staying_true_adversary import (
    AdversaryConfig,
    adversary_objective,
    run_adversary,
    train_adversary,
)
from analysis.explanation.staying_true_tests import (
    models_under_test,
    permutation_summary,
    run_single_token,
    run_staying_true_erasure,
    run_staying_true_permutation,
    single_token_probs,
)

FIXTURES = Path(__file__).parent / "fixtures" / "explanation"
SENTENCES = [([3, 4], 1), ([2], 0), ([2, 4, 3, 3], 0)]  # ids of a 5-word vocabulary


def model(variant, d_in=4, hidden=4, seed=0) -> RegularisedLSTM:
    torch.manual_seed(seed)
    return RegularisedLSTM(variant, d_in, hidden, d_att=3, vocab_size=5).eval()


def batch():
    ids = torch.tensor([[3, 4, 0], [2, 4, 3]])
    return ids, ids > 0


# ----------------------------------------------------------------------------- the extra terms


def test_tying_term_by_hand():
    H = torch.tensor([[[1.0, 0.0], [0.0, 0.0], [9.0, 9.0]]])
    X = torch.tensor([[[0.0, 0.0], [0.0, 2.0], [0.0, 0.0]]])
    # ||h - x||^2 = 1 and 4 on the two real tokens; the padded third is left out
    assert tying_term(H, X, torch.tensor([[True, True, False]])).item() == pytest.approx(2.5)
    assert tying_term(H, X, torch.tensor([[True, False, False]])).item() == pytest.approx(1.0)


def test_tying_regulariser_is_the_weighted_term_on_the_models_own_states():
    clf = model("tying")
    ids, mask = batch()
    X = clf.embed(ids)
    H = clf.rnn_states(X, mask)
    want = 0.5 * ((H - X) ** 2).sum(-1)[mask].mean()
    got = regulariser(clf, ids, mask, StayingTrueConfig(tying_weight=0.5), torch.Generator())
    assert got.item() == pytest.approx(want.item(), rel=1e-6)
    for v in ("base", "concat", "residual"):  # no extra term
        assert regulariser(model(v), ids, mask, StayingTrueConfig(), torch.Generator()).item() == 0.0


def test_mlm_decoder_is_tied_to_the_embedding_matrix_by_hand():
    clf = model("mlm", d_in=2, hidden=2)
    with torch.no_grad():
        clf.decoder.weight.copy_(torch.eye(2))
        clf.decoder.bias.zero_()
        clf.emb.weight.copy_(torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, -1.0], [0.0, 1.0], [2.0, 2.0]]))
    logits = clf.mlm_logits(torch.tensor([[1.0, 0.0]]))
    assert logits.tolist() == [[0.0, 1.0, 3.0, 0.0, 2.0]]
    # cross-entropy of word 2 there: log sum exp - 3
    ce = torch.nn.functional.cross_entropy(logits, torch.tensor([2])).item()
    assert ce == pytest.approx(math.log(1 + math.e + math.e**3 + 1 + math.e**2) - 3)


def test_mask_tokens_chooses_real_tokens_only_at_least_one_per_sentence():
    ids, mask = batch()
    masked, chosen = mask_tokens(ids, mask, 0.0, torch.Generator().manual_seed(0))
    assert chosen.sum(-1).tolist() == [1, 1] and not (chosen & ~mask).any()
    masked, chosen = mask_tokens(ids, mask, 1.0, torch.Generator().manual_seed(0))
    assert chosen.tolist() == mask.tolist() and (masked == 0).all()


def test_mlm_term_is_the_cross_entropy_of_the_masked_words():
    clf = model("mlm")
    ids, mask = batch()
    got = mlm_term(clf, ids, mask, 0.5, torch.Generator().manual_seed(3))
    masked, chosen = mask_tokens(ids, mask, 0.5, torch.Generator().manual_seed(3))
    H = clf.rnn_states(clf.embed(masked), mask)
    logp = torch.log_softmax(clf.decoder(H) @ clf.emb.weight.T + clf.decoder_bias, -1)
    want = -logp[chosen].gather(1, ids[chosen][:, None]).mean()
    assert got.item() == pytest.approx(want.item(), rel=1e-6)


# ----------------------------------------------------------------------------- CONCAT, RESIDUAL


def test_concat_and_residual_states():
    ids, mask = batch()
    for v in VARIANTS:
        logits, a = model(v)(ids, mask)
        assert logits.shape == (2, 2) and torch.allclose(a.sum(-1), torch.ones(2)) and a[0, 2] == 0
    clf = model("concat", d_in=4, hidden=6)
    X = clf.embed(ids)
    H = clf.encode(X, mask)
    assert H.shape == (2, 3, 6 + 4) and clf.d == 10
    assert torch.equal(H[..., 6:], X * mask[..., None]) and torch.equal(H[..., :6], clf.rnn_states(X, mask))
    clf = model("residual", d_in=4, hidden=4)  # same sizes: h + x, no projection
    X = clf.embed(ids)
    assert not hasattr(clf, "proj")
    assert torch.allclose(clf.encode(X, mask), clf.rnn_states(X, mask) + X * mask[..., None])
    clf = model("residual", d_in=4, hidden=6)  # sizes differ: h + P x
    X = clf.embed(ids)
    assert clf.encode(X, mask).shape == (2, 3, 6) and clf.proj.weight.shape == (6, 4)
    assert torch.allclose(clf.encode(X, mask), clf.rnn_states(X, mask) + clf.proj(X) * mask[..., None])


# ----------------------------------------------------------------------------- adversary


def test_adversary_objective_by_hand():
    obj, parts = adversary_objective(
        torch.tensor([[0.5, 0.5]]),
        torch.tensor([[1.0, 0.0]]),
        torch.tensor([[0.5, 0.5, 0.0]]),
        torch.tensor([[0.25, 0.75, 0.0]]),
        torch.tensor([[True, True, False]]),
        weight=2.0,
    )
    kl = 0.5 * math.log(2) + 0.5 * math.log(2 / 3)
    assert parts == pytest.approx({"tvd": 0.5, "kl": kl}) and obj.item() == pytest.approx(0.5 - 2 * kl)


def test_adversary_objective_falls_on_a_toy_model():
    target = model("base")
    xs = [s for s, _ in SENTENCES] * 8
    cfg = AdversaryConfig(n_train=len(xs), epochs=6, batch_size=4, lr=0.02)
    adv, trace = train_adversary(target, xs, 1.0, cfg, StayingTrueConfig())
    assert np.mean(trace[-4:]) < np.mean(trace[:4])
    assert all(not p.requires_grad for p in adv.parameters())
    df = run_adversary(
        {"base": target}, xs, [s for s, _ in SENTENCES], AdversaryConfig(weights=(0.0, 1.0)), StayingTrueConfig()
    )
    assert list(df.weight) == [0.0, 1.0] and (df.mean_jsd <= math.log(2) + 1e-9).all() and (df.mean_tvd <= 1).all()


# ----------------------------------------------------------------------------- the tests, determinism


def toy_models():
    from analysis.explanation.classifiers import Vocab

    vocab = Vocab(["bad", "film", "good"])  # ids 2, 3, 4
    out = []
    for k, v in enumerate(("base", "tying")):
        ex = Explainer(model(v, seed=k), vocab)
        words = [[vocab.words[i] for i in s] for s, _ in SENTENCES]
        out.append((v, ex, [ex.instance(i, w, y) for i, (w, (_, y)) in enumerate(zip(words, SENTENCES))]))
    return out


def test_permutation_is_deterministic_and_accuracy_follows_the_flips():
    a = run_staying_true_permutation(toy_models(), n_perm=7, seed=0)
    b = run_staying_true_permutation(toy_models(), n_perm=7, seed=0)
    pd.testing.assert_frame_equal(a, b)
    right = a.prediction == a.label
    assert np.allclose(a.accuracy_under_permutation[right], 1 - a.flip_rate[right])
    assert np.allclose(a.accuracy_under_permutation[~right], a.flip_rate[~right])
    assert a.loc[a.n_items == 1, "median_output_change"].eq(0).all()
    hand = pd.DataFrame(
        {
            "model": ["base"] * 3 + ["tying"] * 3,
            "id": [0, 1, 2] * 2,
            "median_output_change": [0.1, 0.2, 0.3, 0.4, 0.4, 0.5],
            "flip_rate": [0.0, 0.5, 1.0, 0.0, 0.0, 0.0],
            "correct": [True, True, False, True, False, False],
            "accuracy_under_permutation": [1.0, 0.5, 1.0, 1.0, 0.0, 0.0],
        }
    )
    s = permutation_summary(hand)
    assert list(s.model) == ["base", "tying"] and s.median_output_change.tolist() == pytest.approx([0.2, 0.4])
    assert s.median_output_change_vs_base.tolist() == pytest.approx([1.0, 2.0])
    assert s.accuracy.tolist() == pytest.approx([2 / 3, 1 / 3]) and s.accuracy_under_permutation.iloc[0] == 2.5 / 3


def test_single_token_is_deterministic_and_a_one_token_sentence_is_its_own_single_token():
    models = toy_models()
    a, b = run_single_token(models), run_single_token(toy_models())
    pd.testing.assert_frame_equal(a, b)
    _, ex, inst = models[0]
    one = inst[1]  # the one-token sentence
    assert torch.allclose(single_token_probs(ex, one)[0], one.probs, atol=1e-6)
    assert a.loc[a.n_items == 1, "single_std"].eq(0).all() and a.loc[a.n_items == 1, "tau_polarity"].isna().all()


def test_trained_bundle_runs_every_test(tmp_path):
    train, _ = read_sst2(FIXTURES, "train")
    dev, _ = read_sst2(FIXTURES, "dev")
    cfg = StayingTrueConfig(epochs=1, batch_size=2, d_att=4, hidden=6)
    bundle, rows = train_variants(list(VARIANTS), train, dev, cfg)
    assert [r["model"] for r in rows] == list(VARIANTS)
    assert [r["regularisation_weight"] for r in rows] == [0, 0, 0, 1.0, 1.0]
    torch.save(bundle, tmp_path / "b.pt")
    vocab, models = load_variants(torch.load(tmp_path / "b.pt", weights_only=False))
    assert list(models) == list(VARIANTS) and models["concat"].d == 6 + 50
    got = models_under_test(tmp_path / "b.pt", FIXTURES / "SHA256SUMS", "SST-2", n_explain=2)
    assert [(m, len(i)) for m, _, i in got] == [(v, 2) for v in VARIANTS]
    erasure = run_staying_true_erasure(got, seed=0)
    assert list(erasure.model) == list(VARIANTS) and "set_median_fraction_never_as_1_attention" in erasure


def test_plots_draw_the_three_figures():
    from analysis.explanation import staying_true_plots as plots
    from analysis.shared.plots import close

    perm = run_staying_true_permutation(toy_models(), n_perm=5, seed=0)
    adv = pd.DataFrame(
        {"model": ["base", "base", "tying", "tying"], "weight": [0.0, 1.0] * 2, "mean_tvd": [0.01, 0.05, 0.02, 0.2]}
        | {"mean_jsd": [0.1, 0.3, 0.05, 0.2]}
    )
    figs = [
        plots.plot_staying_true_permutation(perm, permutation_summary(perm), "m"),
        plots.plot_staying_true_adversary(adv, "m"),
        plots.plot_staying_true_single_token(run_single_token(toy_models()), "m"),
    ]
    for fig in figs:
        assert all(ax.get_xlabel() and ax.get_ylabel() for ax in fig.axes)
        close(fig)


def test_finetuned_transformer_changes_the_encoder_and_runs_the_explanation_tests(tmp_path):
    from analysis.core.models import load_model, load_tokenizer
    from analysis.explanation.attn_classifiers import train_all
    from analysis.explanation.classifiers import TrainConfig
    from analysis.explanation.finetuned_transformer import FinetuneConfig
    from analysis.explanation.frozen_transformer import FrozenTransformer
    from analysis.explanation.permutation import run_permutation
    from analysis.explanation.rank_agreement import run_rank_agreement
    from analysis.explanation.setup import load_explainers, pooled_instances

    train, _ = read_sst2(FIXTURES, "train")
    dev, _ = read_sst2(FIXTURES, "dev")
    tf = FrozenTransformer(load_model("tiny-random-bert", device="cpu"), load_tokenizer("tiny-random-bert"), 16)
    before = {k: v.clone() for k, v in tf.model.state_dict().items()}
    cfg = TrainConfig(epochs=1, batch_size=2, hidden=8, d_att=4)
    ft = FinetuneConfig(n_train=4, epochs=2, lr=1e-2, batch_size=2)
    bundle, rows = train_all(train, dev, ["transformer", "transformer_finetuned"], cfg, tf, finetune_cfg=ft)
    assert [r["encoder"] for r in rows] == ["transformer", "transformer_finetuned", "cls_probe"]
    tuned = bundle["encoders"]["transformer_finetuned"]["encoder_state"]
    # the frozen encoder is untouched, the fine-tuned one moved
    assert all(torch.equal(v, tf.model.state_dict()[k]) for k, v in before.items())
    assert any(not torch.equal(v, tuned[k]) for k, v in before.items() if v.is_floating_point())
    explainers = load_explainers(bundle, tf)
    classifiers = [(e, ex, pooled_instances(ex, dev, 2)) for e, ex in explainers.items()]
    assert run_permutation(classifiers, n_perm=3, seed=0).encoder.tolist() == ["transformer"] * 2 + [NAME] * 2
    rank = run_rank_agreement(classifiers)
    a, b = (rank[rank.encoder == e].tau_gradient.to_numpy() for e in ("transformer", NAME))
    assert len(a) == len(b) == 2
