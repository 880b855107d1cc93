"""The attention test rules' drivers (run_<rule>), their shared setup, the trainings of rule
attn_classifiers and the figures, on tiny classifiers built in the test."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from analysis.explanation.adversarial import AdversarySearch, run_adversarial
from analysis.explanation.attn_classifiers import glove_init, train_all
from analysis.explanation.classifiers import AttnClassifier, TrainConfig, Vocab
from analysis.explanation.erasure import ORDERS, erasure_summary, erasure_tables, run_erasure
from analysis.explanation.explainer import Explainer
from analysis.explanation.permutation import run_permutation
from analysis.explanation.rank_agreement import run_rank_agreement
from analysis.explanation.setup import classifiers_under_test
from analysis.explanation.sst2 import read_sst2
from conftest import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "explanation"

SENTENCES = [(["good", "film"], 1), (["bad"], 0), (["bad", "film", "good"], 0)]


def word_explainer(encoder: str, seed: int) -> Explainer:
    torch.manual_seed(seed)
    vocab = Vocab(["good", "bad", "film"])
    return Explainer(AttnClassifier(encoder, 5, hidden=8, d_att=4, vocab_size=len(vocab)), vocab)


def classifiers():
    """(encoder, explainer, instances) as :func:`classifiers_under_test` gives them."""
    out = []
    for enc, seed in (("none", 0), ("lstm", 1)):
        ex = word_explainer(enc, seed)
        out.append((enc, ex, [ex.instance(i, w, y) for i, (w, y) in enumerate(SENTENCES)]))
    return out


def test_run_erasure_stacks_the_classifiers():
    single, sets, summary = run_erasure(classifiers(), seed=0)
    # the one-item sentence is skipped (counted in the set rows)
    assert list(single.encoder) == ["none", "none", "lstm", "lstm"] and list(single.id) == [0, 2, 0, 2]
    assert len(sets) == 4 * 4 and (sets.skipped_lt2_items == 1).all()
    enc, ex, instances = classifiers()[1]
    s, e, skipped = erasure_tables(instances, ex, seed=0)
    assert single[single.encoder == "lstm"].jsd_top.tolist() == [r["jsd_top"] for r in s]
    # one row per encoder and order: the single-weight summary repeated beside each order's
    assert list(zip(summary.encoder, summary.order)) == [(e, o) for e in ("none", "lstm") for o in ORDERS]
    pd.testing.assert_frame_equal(summary, erasure_summary(single, sets))


def test_run_permutation_adversarial_rank_agreement_one_row_per_instance():
    perm = run_permutation(classifiers(), n_perm=5, seed=0)
    assert list(perm.encoder) == ["none"] * 3 + ["lstm"] * 3 and list(perm.id) == [0, 1, 2] * 2
    assert perm.loc[perm.n_items == 1, "max_output_change"].eq(0).all()  # one item: nothing to permute
    adv = run_adversarial(classifiers(), AdversarySearch(steps=5), seed=0)
    assert len(adv) == 12 and list(adv.tolerance.drop_duplicates()) == [0.01, 0.05]  # a row per instance and bound
    assert (adv.output_change <= adv.tolerance + 1e-9).all() and (adv.jsd <= math.log(2) + 1e-9).all()
    assert adv.n_feasible.between(0, 5).all() and (adv.restarts == 5).all()
    rank = run_rank_agreement(classifiers())
    assert len(rank) == 6 and rank.loc[rank.n_items == 1, "tau_gradient"].isna().all()


def test_classifiers_under_test_from_a_bundle(tmp_path):
    train, _ = read_sst2(FIXTURES, "train")
    dev, _ = read_sst2(FIXTURES, "dev")
    bundle, _ = train_all(train, dev, ["none", "cnn"], TrainConfig(epochs=1, batch_size=2, hidden=8, d_att=4))
    torch.save(bundle, tmp_path / "bundle.pt")
    glue_sums = FIXTURES / "SHA256SUMS"  # only its folder is read
    got = list(classifiers_under_test(tmp_path / "bundle.pt", glue_sums, "no-transformer", "SST-2", n_explain=1))
    assert [(enc, len(inst)) for enc, _, inst in got] == [("none", 1), ("cnn", 1)]
    assert isinstance(got[0][1], Explainer) and got[0][2][0].tokens == dev[0][0]
    got = list(classifiers_under_test(tmp_path / "bundle.pt", glue_sums, "no-transformer", "SST-2", n_explain=5))
    assert [len(inst) for _, _, inst in got] == [2, 2]


def test_glove_init_seeded_random_rows_for_missing_words():
    from analysis.shared.vectors import PACKAGE, load_vectors

    vocab = Vocab(["film", "zzqxwvk"])
    vecs, without = glove_init(vocab, seed=0)
    glove, found = load_vectors(PACKAGE).exact(vocab.words)
    assert found[vocab.index["film"]] and not found[vocab.index["zzqxwvk"]]
    assert without == int((~found[1:]).sum())  # <pad> is not counted
    assert (vecs[0] == 0).all() and np.array_equal(vecs[found], glove[found])
    assert (vecs[vocab.index["zzqxwvk"]] != 0).any()
    assert np.array_equal(glove_init(vocab, seed=0)[0], vecs)
    assert not np.array_equal(glove_init(vocab, seed=1)[0], vecs)


def test_train_all_with_the_frozen_transformer():
    from analysis.core.models import load_model, load_tokenizer
    from analysis.explanation.frozen_transformer import FrozenTransformer

    train, _ = read_sst2(FIXTURES, "train")
    dev, _ = read_sst2(FIXTURES, "dev")
    tf = FrozenTransformer(load_model("tiny-random-bert", device="cpu"), load_tokenizer("tiny-random-bert"), 4)
    cfg = TrainConfig(epochs=1, batch_size=2, hidden=8, d_att=4)
    bundle, rows = train_all(train, dev, ["transformer"], cfg, tf)
    assert [r["encoder"] for r in rows] == ["transformer", "cls_probe"]
    assert list(bundle) == ["train_cfg", "encoders", "cls_probe"] and list(bundle["encoders"]) == ["transformer"]
    assert rows[0]["truncated"] == rows[1]["truncated"] > 0  # max_len 4 cuts the longer sentences
    assert math.isnan(rows[1]["final_train_loss"]) and 0 <= rows[1]["dev_accuracy"] <= 1


def test_resolve_cls_layer():
    from analysis.core.models import load_model
    from analysis.explanation.erasure_cls import resolve_cls_layer

    model = load_model("tiny-random-bert", device="cpu")  # 2 layers
    assert resolve_cls_layer(model, None) == 2
    assert resolve_cls_layer(model, 1) == 1
    with pytest.raises(ValueError, match="layers 1..2"):
        resolve_cls_layer(model, 3)


def test_plots_draw_every_figure_in_the_plain_large_style():
    from analysis.explanation import plots
    from analysis.shared.plots import close

    single, sets, _ = run_erasure(classifiers(), seed=0)
    perm = run_permutation(classifiers(), n_perm=5, seed=0)
    adv = run_adversarial(classifiers(), AdversarySearch(steps=5), seed=0)
    figs = [
        plots.plot_erasure_single(single, "m"),
        plots.plot_erasure_set(sets, "m"),
        plots.plot_erasure_cls_single(single, "m"),
        plots.plot_erasure_cls_set(sets, "m", 2),
        plots.plot_permutation(perm, "m"),
        plots.plot_adversarial(adv, "m", AdversarySearch(steps=5)),
        plots.plot_rank_agreement(run_rank_agreement(classifiers()), "m"),
    ]
    assert "layer 2" in figs[3].axes[0].get_title()
    for fig in figs:
        fig.canvas.draw()
        ax = fig.axes[0]
        assert ax.title.get_fontsize() == 9 and ax.xaxis.label.get_fontsize() == 9
        assert {t.get_fontsize() for t in ax.get_xticklabels() + ax.get_yticklabels()} == {8}
        close(fig)
