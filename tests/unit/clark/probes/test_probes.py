import numpy as np
import pytest
import torch

from analysis.clark.probes.data import (
    attach_vectors,
    attach_words,
    make_sentence,
    sentence_maps,
    sentences_from_model,
    subset_records,
)
from analysis.clark.probes.models import AttnProbe, MLPProbe, with_root_attention
from analysis.clark.probes.replicates import sentence_table, uas_replicates
from analysis.clark.probes.settings import MapSettings, ProbeSettings
from analysis.clark.probes.tables import probes_table, with_paper_uas
from analysis.clark.probes.training import (
    batches,
    evaluate,
    fit_epochs,
    heldout_split,
    length_batches,
    right_branching,
    run_probe,
    select_and_train,
    split_batches,
    train_probes,
)
from analysis.shared.vectors import load_vectors


def toy_sentences(n_sent=40, n_heads=3, seed=0, with_gold_head=0):
    """Random trees over units [CLS], words, [SEP]; head ``with_gold_head`` attends from every
    word to its gold head ([CLS] for the root)."""
    rng = np.random.default_rng(seed)
    out = []
    for s in range(n_sent):
        W = int(rng.integers(3, 9))
        heads = np.array([int(rng.integers(0, j + 1)) if j else 0 for j in range(W)])  # 0 = root, else earlier word
        heads = np.where(np.arange(W) == 0, 0, heads)
        heads[1:] = np.where(heads[1:] == np.arange(1, W) + 1, 0, heads[1:])
        attn = rng.dirichlet(np.ones(W + 2), size=(n_heads, W + 2))
        if with_gold_head is not None:
            attn[with_gold_head] = 0.0
            attn[with_gold_head, 0, 0] = attn[with_gold_head, W + 1, W + 1] = 1.0
            attn[with_gold_head, np.arange(1, W + 1), heads] = 1.0
        pos = ["NN"] * W
        pos[-1] = "."
        sent = make_sentence(f"s{s}", {"heads": list(heads - 1), "pos": pos}, words=[f"w{i}" for i in range(W)])
        sent.attn = attn.astype(np.float16)
        sent.extra["vec"] = rng.normal(size=(W, 4)).astype(np.float32)
        out.append(sent)
    return out


def train_eval(probe, train, dev, epochs, lr, batch_size=16, seed=0):
    """Train ``probe`` on ``train`` for ``epochs`` (the last epoch kept), score it on ``dev``."""
    torch.manual_seed(seed)
    fit = length_batches(train, batch_size, probe.needs_attn, probe.needs_vec)
    curve, _ = fit_epochs(probe, fit, fit, epochs=epochs, lr=lr, seed=seed)
    return evaluate(probe, length_batches(dev, batch_size, probe.needs_attn, probe.needs_vec)), curve


def test_probe_reaches_100_when_one_head_points_at_the_gold_head():
    train = toy_sentences(60, seed=1)
    dev = toy_sentences(20, seed=2)
    probe = AttnProbe(n_heads=3)
    res, curve = train_eval(probe, train, dev, epochs=15, lr=0.1)
    assert res["uas"] == 1.0
    assert res["n_words"] == sum(int(s.scored.sum()) for s in dev)  # punctuation ('.') excluded
    assert curve[-1]["train_loss"] < curve[0]["train_loss"]
    assert probe.w[0] > probe.w[1:].abs().max()


def test_words_probe_also_reaches_100_and_runs_seeded():
    train = toy_sentences(60, seed=1)
    dev = toy_sentences(20, seed=2)
    results = []
    for _ in range(2):
        torch.manual_seed(0)
        res, _ = train_eval(AttnProbe(n_heads=3, dim=4), train, dev, epochs=20, lr=0.1)
        results.append(res)
    assert results[0]["uas"] == 1.0
    assert results[0] == results[1]


def test_random_attention_is_near_chance():
    train = toy_sentences(60, seed=1, with_gold_head=None)
    dev = toy_sentences(20, seed=2, with_gold_head=None)
    res, _ = train_eval(AttnProbe(n_heads=3), train, dev, epochs=5, lr=0.1)
    assert res["uas"] < 0.6


def sep_root_sentences(n_sent, seed):
    """Random trees, one head: every word attends to its gold head, except the root word, which
    attends 0.8 to [SEP] and 0.2 to a word that is not its dependent (nothing to [CLS])."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_sent:
        W = int(rng.integers(3, 8))
        order = rng.permutation(W)  # order[0] is the root; each later word takes an earlier one as head
        heads = np.zeros(W, dtype=int)  # units: 0 = root, word j = j + 1
        for k in range(1, W):
            heads[order[k]] = order[int(rng.integers(0, k))] + 1
        root = int(order[0])
        others = [j + 1 for j in range(W) if j != root and heads[j] != root + 1]
        if not others:
            continue
        attn = np.zeros((1, W + 2, W + 2))
        attn[0, 0, 0] = attn[0, W + 1, W + 1] = 1.0
        for j in range(W):
            if j == root:
                attn[0, j + 1, W + 1], attn[0, j + 1, int(rng.choice(others))] = 0.8, 0.2
            else:
                attn[0, j + 1, heads[j]] = 1.0
        sent = make_sentence(f"r{len(out)}", {"heads": list(heads - 1), "pos": ["NN"] * W}, words=["w"] * W)
        sent.attn = attn.astype(np.float16)
        out.append(sent)
    return out


def test_root_is_scored_from_cls_and_sep_as_the_authors_do():
    """The paper's ROOT score (attention to and from [CLS] and [SEP], learned weights) finds a root
    that only [SEP] marks; the old [CLS]-only score (root_mix fixed at 1, 0) cannot."""
    train, dev = sep_root_sentences(40, seed=1), sep_root_sentences(20, seed=2)
    new, _ = train_eval(AttnProbe(n_heads=1), train, dev, epochs=20, lr=0.1)
    old_probe = AttnProbe(n_heads=1)
    old_probe.root_mix.data = torch.tensor([1.0, 0.0])
    old_probe.root_mix.requires_grad_(False)
    old, _ = train_eval(old_probe, train, dev, epochs=20, lr=0.1)
    assert new["uas"] == 1.0
    n_roots = len(dev)
    assert old["uas"] <= 1.0 - n_roots / new["n_words"] + 1e-9  # every root wrong


def test_root_features_combine_cls_and_sep_both_directions():
    # 2 words; head 0: [CLS] w1 w2 [SEP] with hand-set attention to and from the specials
    a = np.zeros((1, 4, 4))
    a[0, 1] = [0.1, 0.0, 0.2, 0.7]  # w1 -> [CLS] 0.1, w2 0.2, [SEP] 0.7
    a[0, 2] = [0.3, 0.5, 0.0, 0.2]
    a[0, 0] = [0.0, 0.6, 0.4, 0.0]  # [CLS] -> w1 0.6, w2 0.4
    a[0, 3] = [0.0, 0.9, 0.1, 0.0]  # [SEP] -> w1 0.9, w2 0.1
    s = make_sentence("x", {"heads": [-1, 0], "pos": ["NN", "NN"]}, words=["a", "b"])
    s.attn = a.astype(np.float16)
    (batch,) = list(batches([s], 4, True, False))
    f = with_root_attention(batch, torch.tensor([2.0, 3.0]))
    # to the root: 2 a(j -> CLS) + 3 a(j -> SEP); from the root: 2 a(CLS -> j) + 3 a(SEP -> j)
    np.testing.assert_allclose(f[0, 1, 0].numpy(), [2 * 0.1 + 3 * 0.7, 2 * 0.6 + 3 * 0.9], atol=2e-3)
    np.testing.assert_allclose(f[0, 2, 0].numpy(), [2 * 0.3 + 3 * 0.2, 2 * 0.4 + 3 * 0.1], atol=2e-3)
    np.testing.assert_allclose(f[0, 1, 2].numpy(), [0.2, 0.5], atol=2e-3)  # words unchanged
    assert batch["feats"][0, 1, 0, 0].item() == np.float32(np.float16(0.1))  # the batch is not modified


def _linear(m, x):
    return x @ m.weight.detach().numpy().T + (0 if m.bias is None else m.bias.detach().numpy())


def test_probe_scores_follow_the_formulas():
    """Both probes' scores against a loop over (dependent j, candidate i), the root from [CLS] and [SEP]."""
    sents = toy_sentences(3, n_heads=2, seed=5, with_gold_head=None)
    (batch,) = list(batches(sents, 8, True, True))
    torch.manual_seed(0)
    for probe in (AttnProbe(2), AttnProbe(2, dim=4)):
        for prm in probe.parameters():
            prm.data.normal_()
        got = probe(batch).detach()
        for b, s in enumerate(sents):
            a, n1 = s.attn.astype(np.float32), s.n + 1
            v = np.concatenate([probe.root.detach().numpy()[None], s.extra["vec"]]) if probe.words else None
            c, e = probe.root_mix.detach().numpy()
            for j in range(1, n1):
                for i in range(n1):
                    to = c * a[:, j, 0] + e * a[:, j, n1] if i == 0 else a[:, j, i]
                    back = c * a[:, 0, j] + e * a[:, n1, j] if i == 0 else a[:, i, j]
                    if probe.words:
                        w = _linear(probe.w_cand, v[i]) + _linear(probe.w_dep, v[j])
                        u = _linear(probe.u_cand, v[i]) + _linear(probe.u_dep, v[j])
                    else:
                        w, u = probe.w.detach().numpy(), probe.u.detach().numpy()
                    np.testing.assert_allclose(got[b, j, i].item(), w @ to + u @ back, rtol=1e-4, atol=1e-4)


def test_right_branching_by_hand():
    # "a b c": b <- a (a's head is b), c <- b, c is the root: right-branching is all correct
    s = make_sentence("x", {"heads": [1, 2, -1], "pos": ["DT", "NN", "VB"]}, words=["a", "b", "c"])
    assert right_branching([s])[0] == {"uas": 1.0, "n_words": 3}
    s = make_sentence("y", {"heads": [-1, 0, 0], "pos": ["VB", "NN", "."]}, punct_pos=(".",), words=["a", "b", "."])
    # predictions: a->b (gold root: wrong), b->. (gold a: wrong), '.' excluded
    assert right_branching([s])[0] == {"uas": 0.0, "n_words": 2}
    # per sentence: correct and scored words (the scorecard's units)
    two = [make_sentence("x", {"heads": [1, 2, -1], "pos": ["DT", "NN", "VB"]}, words=["a", "b", "c"]), s]
    assert right_branching(two)[1].tolist() == [[3, 3], [0, 2]]


def test_batches_mask_candidates_and_pad():
    sents = toy_sentences(3, seed=3)
    (batch,) = list(batches(sents, 8, True, True))
    W1 = max(s.n for s in sents) + 1
    assert batch["feats"].shape == (3, W1, W1, 6) and batch["sep"].shape == (3, W1, 6)
    s0 = sents[0]
    np.testing.assert_array_equal(batch["feats"][0, 2, 1, 1].item(), s0.attn[1, 2, 1])  # a_1(2 -> 1)
    np.testing.assert_array_equal(batch["feats"][0, 2, 1, 4].item(), s0.attn[1, 1, 2])  # a_1(1 -> 2)
    sep = s0.n + 1
    np.testing.assert_array_equal(batch["sep"][0, 2, 1].item(), s0.attn[1, 2, sep])  # a_1(2 -> [SEP])
    np.testing.assert_array_equal(batch["sep"][0, 2, 4].item(), s0.attn[1, sep, 2])  # a_1([SEP] -> 2)
    for b, s in enumerate(sents):
        n1 = s.n + 1
        assert batch["dep"][b].sum() == s.n and not batch["dep"][b, 0]
        assert not batch["cand"][b, 1:n1, n1:].any()  # padding is never a candidate
        assert not batch["cand"][b].diagonal().any()  # nor the word itself
        assert batch["cand"][b, 1:n1, 0].all()  # the root always is
    mlp = MLPProbe(dim=4, hidden=8)
    assert mlp(batch).shape == (3, W1, W1)


def test_sentence_maps_orders_units_cls_words_sep():
    # pieces: [CLS] w0 w1a w1b [SEP]; attention from every piece to w1 pieces = 0.5/0.5
    word_ids = [-1, 0, 1, 1, -1]
    a = np.zeros((1, 1, 5, 5))
    a[..., 2] = a[..., 3] = 0.5
    m = sentence_maps(a, word_ids, "COOOS", 2)
    assert m.shape == (1, 4, 4)
    np.testing.assert_allclose(m[0, :, 2], 1.0)  # everything goes to word 1 (unit 2)
    b = np.zeros((1, 1, 5, 5))
    b[..., 4] = 1.0  # everything to [SEP]: the last unit
    np.testing.assert_allclose(sentence_maps(b, word_ids, "COOOS", 2)[0, :, 3], 1.0)
    with pytest.raises(ValueError):
        sentence_maps(a, word_ids, "OOOOS", 2)
    with pytest.raises(ValueError):
        sentence_maps(a, word_ids, "COOOO", 2)


def test_word_vectors_oov_and_glove_text(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("the 1 2\ncat 3 4\n")
    v = load_vectors(str(f))
    vec, miss = v.lookup(["The", "dog"])
    np.testing.assert_array_equal(vec, [[1, 2], [0, 0]])
    assert list(miss) == [False, True]
    sents = [make_sentence("x", {"heads": [-1, 0]}, words=["cat", "zzz"])]
    assert attach_vectors(sents, v) == {"words": 2, "oov": 1, "oov_rate": 0.5}
    bad = tmp_path / "bad.txt"
    bad.write_text("the 1 2\ncat x y\n")
    with pytest.raises(ValueError, match="bad.txt:2"):
        load_vectors(str(bad))


def test_mlp_scores_follow_the_authors_tanh_layer():
    """s(j, i) = c . tanh(M_cand v_i + M_dep v_j + E[clamp(i - j)] + b) + c0, the root its own
    distance bucket and a learned vector; 256 hidden units by default (the authors')."""
    assert MLPProbe(dim=4).cand.out_features == 256
    sents = toy_sentences(2, seed=6)
    (batch,) = list(batches(sents, 4, False, True))
    torch.manual_seed(0)
    m = MLPProbe(dim=4, hidden=5, max_dist=2, distance="buckets")
    got = m(batch).detach().numpy()
    prm = {k: v.detach().numpy() for k, v in m.named_parameters()}
    for b, s in enumerate(sents):
        v = np.concatenate([prm["root"][None], s.extra["vec"]])
        for j in range(1, s.n + 1):
            for i in range(s.n + 1):
                bucket = 2 * 2 + 1 if i == 0 else int(np.clip(i - j, -2, 2)) + 2
                h = prm["cand.weight"] @ v[i] + prm["cand.bias"] + prm["dep.weight"] @ v[j] + prm["dist.weight"][bucket]
                want = prm["out.weight"] @ np.tanh(h) + prm["out.bias"]
                np.testing.assert_allclose(got[b, j, i], want[0], rtol=1e-5, atol=1e-5)


def test_mlp_scores_with_the_authors_distance_features():
    """s(j, i) = c . tanh(M_cand v_i + M_dep v_j + D f(j, i) + b) + c0, f the 8 features of Clark et
    al. (ahead / behind over the length, offsets 0, -1, +1, -2, +2, root), the root's vector 0."""
    sents = toy_sentences(2, seed=6)
    (batch,) = list(batches(sents, 4, False, True))
    torch.manual_seed(0)
    m = MLPProbe(dim=4, hidden=5)
    got = m(batch).detach().numpy()
    prm = {k: v.detach().numpy() for k, v in m.named_parameters()}
    for b, s in enumerate(sents):
        v = np.concatenate([np.zeros((1, 4)), s.extra["vec"]])
        for j in range(1, s.n + 1):
            for i in range(s.n + 1):
                k = i - j
                f = np.zeros(8) if i else np.eye(8)[7]
                if i:
                    f[:2] = max(k, 0) / s.n, max(-k, 0) / s.n
                    f[2:7] = [k == o for o in (0, -1, 1, -2, 2)]
                h = prm["cand.weight"] @ v[i] + prm["cand.bias"] + prm["dep.weight"] @ v[j] + prm["dist.weight"] @ f
                want = prm["out.weight"] @ np.tanh(h) + prm["out.bias"]
                np.testing.assert_allclose(got[b, j, i], want[0], rtol=1e-5, atol=1e-5)


def test_mlp_probe_learns_distance():
    # gold head is always the next word (last -> root): the distance embedding alone solves it
    rng = np.random.default_rng(0)
    sents = []
    for i in range(50):
        W = int(rng.integers(2, 8))
        heads = list(range(1, W)) + [-1]
        s = make_sentence(str(i), {"heads": heads, "pos": ["NN"] * W}, words=["w"] * W)
        s.extra["vec"] = np.zeros((W, 4), np.float32)
        sents.append(s)
    torch.manual_seed(0)
    res, _ = train_eval(MLPProbe(dim=4, hidden=8), sents[:40], sents[40:], epochs=30, lr=0.05, batch_size=8)
    assert res["uas"] > 0.8


def test_sentences_from_model_streams_and_keeps_input_order(tiny_model, tokenizer):
    def rec(i, words):
        heads = [len(words) - 1] * (len(words) - 1) + [-1]  # every word -> the last; the last is root
        return {"id": i, "words": [words], "meta": {"heads": heads, "pos": ["NN"] * len(words), "words": words}}

    records = [rec("long", "the old dog saw a very small cat today".split()), rec("short", ["dogs", "bark"])]
    counts = {}
    maps = MapSettings(max_len=64, batch_size=1, punct_pos=(), how="mean")
    sents = sentences_from_model(tiny_model, tokenizer, records, maps, counts=counts)
    assert [s.id for s in sents] == ["long", "short"]  # extraction runs shortest first
    assert counts["sentences"] == 2 and [s.n for s in sents] == [9, 2]
    for s in sents:
        assert s.attn.dtype == np.float16 and s.attn.shape[-1] >= s.n


def test_subset_records_counts_only_a_real_sample():
    records = [{"id": str(i)} for i in range(10)]
    counts = {}
    assert subset_records(records, None, 0, "train", counts) is records
    assert subset_records(records, 10, 0, "train", counts) is records and counts == {}
    picked = subset_records(records, 4, 0, "train", counts)
    assert len(picked) == 4 and counts == {"train_sampled_from": 10}
    assert [r["id"] for r in picked] == sorted((r["id"] for r in picked), key=int)  # kept in order
    assert picked == subset_records(records, 4, 0, "train", {})  # seeded


def test_attach_words_takes_the_first_word_list_of_the_record():
    sents = [make_sentence("a", {"heads": [-1, 0]})]
    assert attach_words(sents, [{"id": "a", "words": [["x", "y"]]}]) is sents
    assert sents[0].words == ["x", "y"]


def test_heldout_split_is_seeded_by_id_and_keeps_order():
    sents = toy_sentences(20, seed=4)
    fit, held = heldout_split(sents, 0.25, seed=0)
    assert len(held) == 5 and len(fit) == 15
    assert {s.id for s in fit} | {s.id for s in held} == {s.id for s in sents}
    assert [s.id for s in fit] == [s.id for s in sents if s in fit]  # order kept
    fit2, held2 = heldout_split(sents[::-1], 0.25, seed=0)  # another order: the same sentences
    assert {s.id for s in held2} == {s.id for s in held}
    assert {s.id for s in heldout_split(sents, 0.25, seed=1)[1]} != {s.id for s in held}
    with pytest.raises(ValueError):
        heldout_split(sents, 0.0, 0)


def test_lr_and_epochs_are_chosen_on_heldout_train_never_on_dev():
    sents = {"train": toy_sentences(40, seed=1), "dev": toy_sentences(10, seed=2)}
    data = split_batches(sents, 0.25, seed=0, batch_size=8)
    assert data["sizes"] == {"fit": 30, "heldout": 10, "dev": 10}
    row, curves, per_sentence = run_probe("attention-only", lambda: AttnProbe(3), data, [1e-4, 0.1], epochs=4, seed=0)
    # the dev score is the pooled per-sentence counts
    assert per_sentence.shape == (10, 2) and per_sentence[:, 0].sum() / per_sentence[:, 1].sum() == row["uas"]
    # the chosen (lr, epoch) is the best held-out UAS of the grid (then the lower held-out loss)
    best = max(curves, key=lambda r: (r["heldout_uas"], -r["heldout_loss"]))
    assert (row["lr"], row["epochs"], row["heldout_uas"]) == (best["lr"], best["epoch"], best["heldout_uas"])
    assert sum(r["chosen"] for r in curves) == 1 and len(curves) == 2 * 4
    assert row["lr"] == 0.1 and row["uas"] > 0.9
    # another dev set changes the dev score only, never what is chosen
    other = {
        **data,
        "dev": split_batches({**sents, "dev": toy_sentences(10, seed=9, with_gold_head=None)}, 0.25, 0, 8)["dev"],
    }
    row2, curves2, _ = run_probe("attention-only", lambda: AttnProbe(3), other, [1e-4, 0.1], epochs=4, seed=0)
    assert (row2["lr"], row2["epochs"]) == (row["lr"], row["epochs"]) and curves2 == curves
    assert row2["uas"] < row["uas"]


def test_the_chosen_epoch_is_the_probe_kept():
    sents = {"train": toy_sentences(40, seed=1, with_gold_head=None), "dev": toy_sentences(10, seed=2)}
    data = split_batches(sents, 0.25, seed=0, batch_size=8)
    model, chosen, curves = select_and_train("x", lambda: AttnProbe(3), data["fit"], data["heldout"], [0.3], 6, 0)
    assert evaluate(model, data["heldout"])["uas"] == chosen["heldout_uas"]


def test_train_probes_in_table_order_and_run_probe_is_seeded():
    sents = {"train": toy_sentences(20, seed=1), "dev": toy_sentences(8, seed=2)}
    lr = {"attention-only": [0.1], "attention-and-words": [0.05, 0.1], "word-vectors MLP + distance": [0.05]}
    probes = ProbeSettings(lrs=lr, epochs=2, batch_size=8, heldout_fraction=0.25, seed=0, mlp_hidden=8)
    results, curves, sizes, per_sentence = train_probes(sents, dim=4, probes=probes)
    assert list(per_sentence) == [r["probe"] for r in results]
    names = ["attention-only", "attention-and-words", "right-branching", "word-vectors MLP + distance"]
    assert [r["probe"] for r in results] == names
    assert len(curves) == 2 * 4 and {c["probe"] for c in curves} == set(lr)
    assert results[2] == {"probe": "right-branching", **right_branching(sents["dev"])[0]}
    data = split_batches(sents, 0.25, 0, 8)
    again = run_probe("attention-only", lambda: AttnProbe(3), data, [0.1], 2, 0)
    assert again[0] == results[0]
    table = with_paper_uas(probes_table(results, "m", sizes, "toy", 4), {"attention-only": 61})
    assert list(table.columns[:2]) == ["model", "probe"] and table.paper_uas.iloc[0] == 61
    assert list(table.columns[-6:]) == [
        "paper_uas",
        "train_sentences",
        "heldout_sentences",
        "dev_sentences",
        "vectors",
        "vector_dim",
    ]
    assert table.paper_uas.iloc[1:].isna().all()
    assert table[["train_sentences", "heldout_sentences", "dev_sentences", "vectors"]].iloc[0].tolist() == [
        20,
        5,
        8,
        "toy",
    ]
    assert np.isnan(table.lr.iloc[2]) and table.lr.iloc[0] == 0.1


def test_plot_probes():
    import pandas as pd

    from analysis.clark.probes.plots import plot_probes
    from analysis.shared.plots import close

    table = pd.DataFrame(
        {"probe": ["a", "b"], "uas": [0.6, 0.1], "lr": [0.1, np.nan], "epochs": [2, np.nan], "paper_uas": [61, np.nan]}
    )
    table["vectors"] = "GloVe"
    curves = pd.DataFrame(
        {
            "probe": ["a"] * 4,
            "lr": [0.1, 0.1, 0.5, 0.5],
            "epoch": [1, 2, 1, 2],
            "heldout_uas": [0.5, 0.6, 0.4, 0.3],
            "chosen": [False, True, False, False],
        }
    )
    fig = plot_probes(table, curves, "m", "dev", 10, 5)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["a", "b"]
    assert any("lr 0.1, 2 ep." in t.get_text() for t in fig.axes[0].texts)
    (line,) = fig.axes[1].get_lines()  # the chosen learning rate's curve only
    assert list(line.get_ydata()) == [50.0, 60.0]
    close(fig)


def test_paper_numbers_round_trip_through_the_scores_table(tmp_path):
    """rule probes reads the scores of rule probes_train back and adds the paper's UAS: the table it
    writes is the one a single rule wrote before the split, byte for byte."""
    import pandas as pd

    from analysis.shared.rule_io import write_table

    results = [
        {"probe": "attention-only", "uas": 0.4788114, "n_words": 10, "loss": 2.0816612},
        {"probe": "right-branching", "uas": 0.2787912, "n_words": 10, "loss": np.nan},
    ]
    paper = {"attention-only": 61, "right-branching": 26}
    sizes = {"fit": 3, "heldout": 1, "dev": 2}
    write_table(probes_table(results, "m", sizes, "toy", 4), tmp_path / "scores.csv")
    back = pd.read_csv(tmp_path / "scores.csv", float_precision="round_trip")
    write_table(with_paper_uas(back, paper), tmp_path / "split.csv")
    table = probes_table(results, "m", sizes, "toy", 4)  # in one go, as before the split
    table.insert(5, "paper_uas", [paper.get(p, np.nan) for p in table.probe])
    write_table(table, tmp_path / "whole.csv")
    assert (tmp_path / "split.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()


def test_uas_replicates_resample_the_same_sentences_for_every_probe():
    per_sentence = {"a": np.array([[2, 2], [0, 2], [1, 4]]), "b": np.array([[0, 2], [2, 2], [1, 4]])}
    ids = {"a": ["s1", "s2", "s3"], "b": ["s2", "s1", "s3"]}  # another order: matched by id
    table = sentence_table(per_sentence, ids)
    weights = np.array([[1, 1, 1], [2, 0, 1], [0, 0, 3]])  # over s1, s2, s3
    rep = uas_replicates(table, weights).set_index(["replicate", "probe"]).uas
    # a: s1 2/2, s2 0/2, s3 1/4; b: s1 2/2 (its second row), s2 0/2, s3 1/4: the same per sentence
    assert rep.loc[0].tolist() == pytest.approx([3 / 8, 3 / 8])
    assert rep.loc[(1, "a")] == pytest.approx((4 + 1) / (4 + 4)) and rep.loc[(2, "b")] == pytest.approx(3 / 12)
    with pytest.raises(ValueError, match="other dev sentences"):
        uas_replicates(
            sentence_table({"a": per_sentence["a"], "c": per_sentence["b"][:2]}, {**ids, "c": ["s1", "s2"]}), weights
        )


def test_random_init_probe_by_hand_with_a_probe_that_does_not_learn():
    """At learning rate 0 the attention-and-words probe keeps its zero weights: every candidate
    scores 0, so every word's head is the first candidate, the root, and the loss is log(candidates)."""
    from analysis.clark.probes.data import Sentence
    from analysis.clark.probes.random_init import random_init_probe
    from analysis.clark.probes.training import RANDOM_INIT

    def sentence(sid, heads):
        W = len(heads)
        return Sentence(
            sid,
            [f"w{i}" for i in range(W)],
            np.array(heads),
            np.ones(W, dtype=bool),
            attn=np.full((2, W + 2, W + 2), 1 / (W + 2), dtype=np.float16),
            extra={"vec": np.ones((W, 3), dtype=np.float32)},
        )

    # train: two 2-word sentences, word 1 the root, word 2 its dependent (one held out, one fitted);
    # dev: 3 words, word 1 the root, words 2 and 3 its dependents
    sents = {"train": [sentence("a", [0, 1]), sentence("b", [0, 1])], "dev": [sentence("d", [0, 1, 1])]}
    probes = ProbeSettings(lrs={RANDOM_INIT: [0.0]}, epochs=2, batch_size=4, heldout_fraction=0.5, seed=0, mlp_hidden=8)
    row, curve, per_sentence, dev_ids, counts = random_init_probe(sents, n_heads=2, dim=3, probes=probes)
    # held out: 1 of 2 words has the root as head, 2 candidates each; dev: 1 of 3, 3 candidates each
    assert [(r["epoch"], r["heldout_uas"], r["chosen"]) for r in curve] == [(1, 0.5, True), (2, 0.5, False)]
    assert [r["heldout_loss"] for r in curve] == pytest.approx([np.log(2)] * 2)
    assert {k: row[k] for k in ("probe", "n_words", "lr", "epochs", "heldout_uas")} == {
        "probe": RANDOM_INIT,
        "n_words": 3,
        "lr": 0.0,
        "epochs": 1,
        "heldout_uas": 0.5,
    }
    assert row["uas"] == pytest.approx(1 / 3) and row["loss"] == pytest.approx(np.log(3))
    assert per_sentence.tolist() == [[1, 3]] and dev_ids == ["d"] and counts == {}


def test_uas_replicates_draw_whole_documents():
    from analysis.clark.syntax.heldout import document_clusters
    from analysis.shared.bootstrap import cluster_weights

    per_sentence = {"a": np.array([[2, 2], [0, 2], [1, 4]])}
    table = sentence_table(per_sentence, {"a": ["d1:0", "d1:1", "d2:0"]})
    clusters, unit = document_clusters(sorted(set(table.sentence)))
    assert (clusters, unit) == (["d1", "d1", "d2"], "document")
    # numpy's default_rng(0).integers(0, 2, size=(3, 2)): documents [[1, 1], [1, 0], [0, 0]]
    w = cluster_weights(clusters, 3, 0)
    assert w.tolist() == [[0, 0, 2], [1, 1, 1], [2, 2, 0]]
    rep = uas_replicates(table, w).uas
    # d2 twice: 2 of 8; all once: 3 of 8; d1 twice: 4 of 8 (each over the replicate's own words)
    assert rep.tolist() == pytest.approx([2 / 8, 3 / 8, 4 / 8])
    assert document_clusters(["ewt:0", "ewt:1"]) == (["ewt:0", "ewt:1"], "sentence")


def test_the_authors_distance_features_by_hand():
    from analysis.clark.probes.models import MLPProbe, authors_distance_features

    # one sentence of 3 words (units 0 = root, 1..3), padded to 5 units
    f = authors_distance_features(torch.tensor([3]), 5)[0]
    assert f.shape == (5, 5, 8)
    # dependent 1, candidate 3: 2 words ahead over 3 words; offset +2 indicator; not the root
    assert f[1, 3].tolist() == pytest.approx([2 / 3, 0, 0, 0, 0, 0, 1, 0])
    # dependent 3, candidate 2: 1 word behind; offset -1 indicator
    assert f[3, 2].tolist() == pytest.approx([0, 1 / 3, 0, 1, 0, 0, 0, 0])
    # any dependent, candidate 0 (the root): only the root indicator
    assert f[2, 0].tolist() == [0, 0, 0, 0, 0, 0, 0, 1.0]
    probe = MLPProbe(4, hidden=6)
    assert probe.root.requires_grad is False and float(probe.root.abs().sum()) == 0  # the root's vector: zeros
    batch = {"vec": torch.randn(1, 5, 4), "dep": torch.tensor([[False, True, True, True, False]])}
    assert probe(batch).shape == (1, 5, 5) and MLPProbe(4, hidden=6, distance="buckets")(batch).shape == (1, 5, 5)
    with pytest.raises(ValueError, match="clark_probes.mlp_distance"):
        MLPProbe(4, distance="bins")
