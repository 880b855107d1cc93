"""Tutek & Snajder 2020 (rules staying_true_*): the regularisers' extra terms by hand, the
CONCAT / RESIDUAL states, the model-based adversary's objective, and deterministic
permutation and single-token runs, on tiny models built here."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from analysis.explanation.explainer import Explainer
from analysis.explanation.finetuned_transformer import NAME
from analysis.explanation.sst2 import read_sst2
from analysis.explanation.staying_true.adversary import (
    AdversaryConfig,
    adversary_objective,
    levelled_off,
    relative_changes,
    train_adversary,
)
from analysis.explanation.staying_true.adversary_runs import run_adversary
from analysis.explanation.staying_true.attention_tests import (
    models_under_test,
    permutation_summary,
    run_single_token,
    run_staying_true_erasure,
    run_staying_true_permutation,
    single_token_probs,
)
from analysis.explanation.staying_true.curves import common_jsd_level, equal_jsd_summary, tvd_at_jsd
from analysis.explanation.staying_true.models import (
    VARIANTS,
    RegularisedLSTM,
    StayingTrueConfig,
    kept_replicates,
    kept_table,
    load_variants,
    mask_tokens,
    mean_norms,
    mlm_term,
    regulariser,
    state_norms,
    train_variants,
    tying_term,
)
from conftest import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "explanation"
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


def test_mean_norms_by_hand():
    X = torch.tensor([[[3.0, 4.0], [0.0, 1.0], [9.0, 9.0]]])  # norms 5, 1 (the third is padding)
    H = torch.tensor([[[0.0, 0.0], [0.0, 2.0], [1.0, 1.0]]])  # norms 0, 2; H - X norms 5, 1
    got = mean_norms(H, X, torch.tensor([[True, True, False]]))
    assert got == pytest.approx({"mean_x_norm": 3.0, "mean_h_norm": 1.0, "mean_h_minus_x_norm": 3.0})


def test_state_norms_weigh_every_real_token():
    clf = model("tying")
    xs = [[3, 4], [2]]
    got = state_norms(clf, xs, batch_size=1)  # two batches of one sentence: token-weighted
    X = clf.embed(torch.tensor([3, 4, 2])).detach()
    assert got["mean_x_norm"] == pytest.approx(float(X.norm(dim=-1).mean()), rel=1e-6)


def test_tying_detach_embeddings_keeps_the_tying_gradient_off_the_embeddings():
    ids, mask = batch()
    grads = {}
    for detach in (False, True):
        clf = model("tying")
        reg = regulariser(clf, ids, mask, StayingTrueConfig(tying_detach_embeddings=detach), torch.Generator())
        reg.backward()
        grads[detach] = clf.emb.weight.grad.clone()
        # the value is the same term either way
        X = clf.embed(ids)
        assert reg.item() == pytest.approx(tying_term(clf.rnn_states(X, mask), X, mask).item(), rel=1e-6)
    # detached, the embeddings get the gradient through h_t only; attached, also the -2 (h_t - x_t) path
    assert not torch.allclose(grads[False], grads[True])
    clf = model("tying")
    X = clf.embed(ids)
    direct = torch.autograd.grad(tying_term(clf.rnn_states(X.detach(), mask), X, mask), clf.emb.weight)[0]
    assert torch.allclose(grads[False] - grads[True], direct, atol=1e-6)


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


def test_relative_changes_and_the_level_off_rule_by_hand():
    objectives = [1.0, 0.5, 0.4, 0.39, 0.385, 0.2]
    # change of each epoch / range covered so far: 0.5/0.5, 0.1/0.6, 0.01/0.61, 0.005/0.615, 0.185/0.8
    want = [1.0, 0.1 / 0.6, 0.01 / 0.61, 0.005 / 0.615, 0.185 / 0.8]
    assert relative_changes(objectives) == pytest.approx(want)
    assert [levelled_off(objectives[:k], tol=0.02) for k in range(1, 7)] == [False] * 4 + [True, False]
    assert levelled_off(objectives[:4], tol=0.02, patience=1) and not levelled_off(objectives[:3], tol=0.02)
    # a stall at the start is no level: the first change is the whole range covered
    assert relative_changes([0.3, 0.3]) == [0.0] and relative_changes([-0.1, 0.1, -0.2]) == pytest.approx(
        [1, 0.3 / 0.3]
    )
    assert not levelled_off([0.2178, 0.2142, 0.2121], tol=0.02)  # a fresh tying adversary's first epochs


def test_tvd_at_equal_jsd_by_hand():
    # points (JSD, TVD) out of order; the curve through (0.1, 0.05), (0.3, 0.15), (0.6, 0.3)
    assert tvd_at_jsd([0.6, 0.1, 0.3], [0.3, 0.05, 0.15], 0.2) == pytest.approx(0.10)
    assert tvd_at_jsd([0.6, 0.1, 0.3], [0.3, 0.05, 0.15], 0.5) == pytest.approx(0.25)
    assert tvd_at_jsd([0.6, 0.1, 0.3], [0.3, 0.05, 0.15], 0.6) == pytest.approx(0.3)
    assert math.isnan(tvd_at_jsd([0.1, 0.3], [0.05, 0.15], 0.4))  # beyond the largest JSD reached
    assert tvd_at_jsd([0.1, 0.3], [0.05, 0.15], 0.05) == pytest.approx(0.05)  # below: the cheapest adversary
    # an adversary beaten by another (at least its JSD for less TVD) is left out: (0.5, 0.4) by (0.6, 0.3),
    # (0.3, 0.2) by (0.3, 0.15); the curve is the one above
    jsd, tvd = [0.6, 0.1, 0.3, 0.5, 0.3], [0.3, 0.05, 0.15, 0.4, 0.2]
    assert [tvd_at_jsd(jsd, tvd, x) for x in (0.2, 0.5)] == pytest.approx([0.10, 0.25])
    df = pd.DataFrame(
        {
            "model": ["base"] * 3 + ["tying"] * 2,
            "weight": [0.0, 1.0, 8.0, 0.0, 1.0],
            "mean_jsd": [0.1, 0.5, 0.6, 0.2, 0.4],
            "mean_tvd": [0.1, 0.2, 0.4, 0.1, 0.5],
            "levelled_off": [True, True, False, True, True],
            "epochs": [3, 4, 15, 5, 6],
        }
    )
    assert common_jsd_level(df) == pytest.approx(0.4)  # the largest JSD both curves reach
    s = equal_jsd_summary(df)
    # base at JSD 0.4: 0.1 + (0.4 - 0.1) / (0.5 - 0.1) * (0.2 - 0.1) = 0.175; tying: its endpoint 0.5
    assert s.tvd_at_jsd_level.tolist() == pytest.approx([0.175, 0.5])
    assert s.tvd_at_jsd_level_vs_base.tolist() == pytest.approx([1.0, 0.5 / 0.175])
    assert s.levelled_off.tolist() == [2, 2] and s.max_epochs_run.tolist() == [15, 6]
    fixed = equal_jsd_summary(df, levels=[0.3, 0.45])
    # at 0.3: base 0.1 + 0.5 x 0.1 = 0.15, tying 0.1 + 0.5 x 0.4 = 0.3; at 0.45: base 0.1 + 0.875 x 0.1,
    # tying none (its curve ends at JSD 0.4)
    assert fixed.tvd_at_jsd_level.tolist() == pytest.approx([0.15, 0.3, 0.1 + 0.875 * 0.1, float("nan")], nan_ok=True)
    # the floor: each model's lambda = 0 adversary's TVD (0.1 both), and the TVD above it
    assert fixed.floor_tvd.tolist() == [0.1] * 4
    assert fixed.tvd_above_floor.tolist() == pytest.approx([0.05, 0.2, 0.0875, float("nan")], nan_ok=True)
    # bracketed: adversaries at or below and at or above the level (tying's curve ends at 0.4 < 0.45)
    assert fixed.bracketed.tolist() == [1, 1, 1, 0]
    assert fixed.tvd_at_jsd_level_vs_base.tolist() == pytest.approx([1.0, 2.0, 1.0, float("nan")], nan_ok=True)


def test_adversary_objective_falls_on_a_toy_model():
    target = model("base")
    xs = [s for s, _ in SENTENCES] * 8
    for init in ("fresh", "copy"):
        cfg = AdversaryConfig(n_train=len(xs), max_epochs=6, tol=1e-9, batch_size=4, lr=0.02, init=init)
        adv, trace, epochs, _ = train_adversary(target, xs, 1.0, cfg, StayingTrueConfig())
        assert len(epochs) == 6 and np.mean(trace[-4:]) < np.mean(trace[:4])
        assert all(not p.requires_grad for p in adv.parameters())
    # a loose tolerance stops it as soon as two epochs in a row change little
    cfg = AdversaryConfig(n_train=len(xs), max_epochs=50, tol=0.5, batch_size=4, lr=0.02)
    _, _, epochs, _ = train_adversary(target, xs, 1.0, cfg, StayingTrueConfig())
    assert len(epochs) < 50 and levelled_off(epochs, 0.5) and not levelled_off(epochs[:-1], 0.5)
    with pytest.raises(ValueError, match="init"):
        train_adversary(target, xs, 1.0, AdversaryConfig(init="zero"), StayingTrueConfig())
    df = run_adversary(
        {"base": target},
        xs,
        [s for s, _ in SENTENCES],
        AdversaryConfig(weights=(0.0, 1.0), max_epochs=3, search_steps=0),
        StayingTrueConfig(),
        init_embeddings=target.emb.weight.detach().clone(),
    )
    assert list(df.weight) == [0.0, 1.0] and (df.mean_jsd <= math.log(2) + 1e-9).all() and (df.mean_tvd <= 1).all()
    assert (df.epochs <= 3).all() and df.init.eq("fresh").all() and "objective_rel_change_last" in df
    assert df.epoch_kept.eq(df.epochs).all() and df.stopping.eq("range_change").all()  # the last epoch kept
    assert df.converged.eq(df.levelled_off).all() and df.source.eq("grid").all() and df.regulariser.all()


def test_fresh_adversary_starts_from_the_given_embeddings_and_another_seed():
    from analysis.explanation.staying_true.adversary import fresh_adversary

    target = model("mlm", hidden=6)
    init = torch.arange(20.0).reshape(5, 4)
    adv = fresh_adversary(target, 0, StayingTrueConfig(d_att=3), init)
    assert torch.equal(adv.emb.weight, init) and adv.variant == "mlm" and adv.d_rnn == 6
    same_seed = model("mlm", hidden=6, seed=0)
    assert not torch.equal(adv.attention.W.weight, same_seed.attention.W.weight)


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
    assert s.accuracy_drop_under_permutation.tolist() == pytest.approx([2 / 3 - 2.5 / 3, 0.0])


def test_single_token_is_deterministic_and_a_one_token_sentence_is_its_own_single_token():
    models = toy_models()
    a, b = run_single_token(models), run_single_token(toy_models())
    pd.testing.assert_frame_equal(a, b)
    _, ex, inst = models[0]
    one = inst[1]  # the one-token sentence
    assert torch.allclose(single_token_probs(ex, one)[0], one.probs, atol=1e-6)
    assert a.loc[a.n_items == 1, "single_std"].eq(0).all() and a.loc[a.n_items == 1, "tau_polarity"].isna().all()


def test_accuracy_kept_is_paired_on_the_same_dev_sentences_by_hand():
    # 4 dev sentences: base right on 0, 1, 2 (0.75); tying right on 0, 1, 3 (0.5 + 0.25 = 0.75);
    # mlm right on 0 only (0.25)
    correct = {
        "base": np.array([1, 1, 1, 0], bool),
        "tying": np.array([1, 1, 0, 1], bool),
        "mlm": np.array([1, 0, 0, 0], bool),
    }
    t = kept_table(correct)
    assert t.model.tolist() == ["tying", "mlm"]
    assert np.allclose(t.accuracy, [0.75, 0.25]) and np.allclose(t.base_accuracy, 0.75)
    assert np.allclose(t.difference, [0.0, -0.5])
    # replicates: the same resample for every model (shared.bootstrap.unit_weights, seeded); the
    # draws of seed 0 are rows 3, 2, 2, 1 / 1, 0, 0, 0 / 0, 3, 2, 3
    from analysis.shared.bootstrap import resample_indices

    assert resample_indices(4, 3, 0).tolist() == [[3, 2, 2, 1], [1, 0, 0, 0], [0, 3, 2, 3]]
    b = kept_replicates(correct, resamples=3, seed=0)
    assert b.columns.tolist() == ["model", "accuracy", "base_accuracy", "difference", "replicate", "resampled_units"]
    assert (b.resampled_units == 4).all()  # the 4 dev sentences each replicate drew from
    assert b.model.tolist() == ["tying"] * 3 + ["mlm"] * 3 and b.replicate.tolist() == [0, 1, 2] * 2
    # base 3/4, 4/4, 2/4; tying 2/4, 4/4, 3/4; mlm 0, 3/4, 1/4
    assert np.allclose(b.base_accuracy, [0.75, 1, 0.5] * 2)
    assert np.allclose(b.accuracy, [0.5, 1, 0.75, 0, 0.75, 0.25])
    assert np.allclose(b.difference, [-0.25, 0, 0.25, -0.75, -0.25, -0.25])
    assert kept_replicates(correct, 5, 0).equals(kept_replicates(correct, 5, 0))  # seeded


def test_trained_bundle_runs_every_test(tmp_path):
    train, _ = read_sst2(FIXTURES, "train")
    dev, _ = read_sst2(FIXTURES, "dev")
    cfg = StayingTrueConfig(epochs=1, batch_size=2, d_att=4, hidden=6)
    bundle, rows = train_variants(list(VARIANTS), train, dev, cfg)
    assert [r["model"] for r in rows] == list(VARIANTS)
    assert [r["regularisation_weight"] for r in rows] == [0, 0, 0, 1.0, 1.0]
    # each model's per-sentence correctness is kept, its mean the dev accuracy
    assert list(bundle["dev_correct"]) == list(VARIANTS)
    assert [float(bundle["dev_correct"][r["model"]].double().mean()) for r in rows] == [r["dev_accuracy"] for r in rows]
    assert all(len(c) == len(dev) for c in bundle["dev_correct"].values())
    torch.save(bundle, tmp_path / "b.pt")
    vocab, models = load_variants(torch.load(tmp_path / "b.pt", weights_only=False))
    assert list(models) == list(VARIANTS) and models["concat"].d == 6 + 50
    got = models_under_test(tmp_path / "b.pt", FIXTURES / "SHA256SUMS", "SST-2", n_explain=2)
    assert [(m, len(i)) for m, _, i in got] == [(v, 2) for v in VARIANTS]
    erasure = run_staying_true_erasure(got, seed=0)
    assert list(erasure.model) == list(VARIANTS) and "set_median_fraction_never_as_1_attention" in erasure


def test_plots_draw_the_three_figures():
    from analysis.explanation.staying_true import plots
    from analysis.shared.plots import close

    perm = run_staying_true_permutation(toy_models(), n_perm=5, seed=0)
    adv = pd.DataFrame(
        {"model": ["base", "base", "tying", "tying"], "weight": [0.0, 1.0] * 2, "mean_tvd": [0.01, 0.05, 0.02, 0.2]}
        | {"mean_jsd": [0.1, 0.3, 0.05, 0.2]}
    )
    figs = [
        plots.plot_staying_true_permutation(perm, permutation_summary(perm), "m"),
        plots.plot_staying_true_adversary(adv, "m", jsd_levels=[0.2, 0.3]),
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
