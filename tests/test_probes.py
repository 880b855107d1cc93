import numpy as np
import pytest
import torch

from analysis.clark import probes as pr


def toy_sentences(n_sent=40, n_heads=3, seed=0, with_gold_head=0):
    """Random trees; head ``with_gold_head`` attends from every word to its gold head."""
    rng = np.random.default_rng(seed)
    out = []
    for s in range(n_sent):
        W = int(rng.integers(3, 9))
        heads = np.array([int(rng.integers(0, j + 1)) if j else 0 for j in range(W)])  # 0 = root, else earlier word
        heads = np.where(np.arange(W) == 0, 0, heads)
        heads[1:] = np.where(heads[1:] == np.arange(1, W) + 1, 0, heads[1:])
        attn = rng.dirichlet(np.ones(W + 1), size=(n_heads, W + 1))
        if with_gold_head is not None:
            attn[with_gold_head] = 0.0
            attn[with_gold_head, 0, 0] = 1.0
            attn[with_gold_head, np.arange(1, W + 1), heads] = 1.0
        pos = ["NN"] * W
        pos[-1] = "."
        sent = pr.make_sentence(f"s{s}", {"heads": list(heads - 1), "pos": pos}, words=[f"w{i}" for i in range(W)])
        sent.attn = attn.astype(np.float16)
        sent.extra["vec"] = rng.normal(size=(W, 4)).astype(np.float32)
        out.append(sent)
    return out


def test_probe_reaches_100_when_one_head_points_at_the_gold_head():
    train = toy_sentences(60, seed=1)
    dev = toy_sentences(20, seed=2)
    probe = pr.AttnProbe(n_heads=3)
    res, curve = pr.train(probe, train, dev, epochs=15, lr=0.1, batch_size=16, seed=0)
    assert res["uas"] == 1.0
    assert res["n_words"] == sum(int(s.scored.sum()) for s in dev)  # punctuation ('.') excluded
    assert curve[-1]["train_loss"] < curve[0]["train_loss"]
    assert probe.w[0] > probe.w[1:].abs().max()


def test_words_probe_also_reaches_100_and_runs_seeded():
    train = toy_sentences(60, seed=1)
    dev = toy_sentences(20, seed=2)
    results = []
    for _ in range(2):
        probe = pr.AttnProbe(n_heads=3, dim=4)
        res, _ = pr.train(probe, train, dev, epochs=20, lr=0.1, batch_size=16, seed=0)
        results.append(res)
    assert results[0]["uas"] == 1.0
    assert results[0] == results[1]


def test_random_attention_is_near_chance():
    train = toy_sentences(60, seed=1, with_gold_head=None)
    dev = toy_sentences(20, seed=2, with_gold_head=None)
    res, _ = pr.train(pr.AttnProbe(n_heads=3), train, dev, epochs=5, lr=0.1, batch_size=16)
    assert res["uas"] < 0.6


def test_right_branching_by_hand():
    # "a b c": b <- a (a's head is b), c <- b, c is the root: right-branching is all correct
    s = pr.make_sentence("x", {"heads": [1, 2, -1], "pos": ["DT", "NN", "VB"]}, words=["a", "b", "c"])
    assert pr.right_branching([s]) == {"uas": 1.0, "n_words": 3}
    s = pr.make_sentence("y", {"heads": [-1, 0, 0], "pos": ["VB", "NN", "."]}, words=["a", "b", "."])
    # predictions: a->b (gold root: wrong), b->. (gold a: wrong), '.' excluded
    assert pr.right_branching([s]) == {"uas": 0.0, "n_words": 2}


def test_batches_mask_candidates_and_pad():
    sents = toy_sentences(3, seed=3)
    (batch,) = list(pr.batches(sents, 8, True, True))
    W1 = max(s.n for s in sents) + 1
    assert batch["feats"].shape == (3, W1, W1, 6)
    s0 = sents[0]
    np.testing.assert_array_equal(batch["feats"][0, 2, 1, 1].item(), s0.attn[1, 2, 1])  # a_1(2 -> 1)
    np.testing.assert_array_equal(batch["feats"][0, 2, 1, 4].item(), s0.attn[1, 1, 2])  # a_1(1 -> 2)
    for b, s in enumerate(sents):
        n1 = s.n + 1
        assert batch["dep"][b].sum() == s.n and not batch["dep"][b, 0]
        assert not batch["cand"][b, 1:n1, n1:].any()  # padding is never a candidate
        assert not batch["cand"][b].diagonal().any()  # nor the word itself
        assert batch["cand"][b, 1:n1, 0].all()  # the root always is
    mlp = pr.MLPProbe(dim=4, hidden=8)
    assert mlp(batch).shape == (3, W1, W1)


def test_sentence_maps_reorders_units_root_first():
    # pieces: [CLS] w0 w1a w1b [SEP]; attention from every piece to w1 pieces = 0.5/0.5
    word_ids = [-1, 0, 1, 1, -1]
    a = np.zeros((1, 1, 5, 5))
    a[..., 2] = a[..., 3] = 0.5
    m = pr.sentence_maps(a, word_ids, "COOOS", 2)
    assert m.shape == (1, 3, 3)
    np.testing.assert_allclose(m[0, :, 2], 1.0)  # everything goes to word 1 (unit 2)
    with pytest.raises(ValueError):
        pr.sentence_maps(a, word_ids, "OOOOS", 2)


def test_word_vectors_oov_and_glove_text(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("the 1 2\ncat 3 4\n")
    v = pr.load_vectors(str(f))
    vec, miss = v.lookup(["The", "dog"])
    np.testing.assert_array_equal(vec, [[1, 2], [0, 0]])
    assert list(miss) == [False, True]
    sents = [pr.make_sentence("x", {"heads": [-1, 0]}, words=["cat", "zzz"])]
    assert pr.attach_vectors(sents, v) == {"words": 2, "oov": 1, "oov_rate": 0.5}
    bad = tmp_path / "bad.txt"
    bad.write_text("the 1 2\ncat x y\n")
    with pytest.raises(ValueError, match="bad.txt:2"):
        pr.load_vectors(str(bad))


def test_mlp_probe_learns_distance():
    # gold head is always the next word (last -> root): the distance embedding alone solves it
    rng = np.random.default_rng(0)
    sents = []
    for i in range(50):
        W = int(rng.integers(2, 8))
        heads = list(range(1, W)) + [-1]
        s = pr.make_sentence(str(i), {"heads": heads, "pos": ["NN"] * W}, words=["w"] * W)
        s.extra["vec"] = np.zeros((W, 4), np.float32)
        sents.append(s)
    torch.manual_seed(0)
    res, _ = pr.train(pr.MLPProbe(dim=4, hidden=8), sents[:40], sents[40:], epochs=30, lr=0.05, batch_size=8)
    assert res["uas"] > 0.8


def test_sentences_from_model_streams_and_keeps_input_order(tiny_model, tokenizer):
    def rec(i, words):
        heads = [len(words) - 1] * (len(words) - 1) + [-1]  # every word -> the last; the last is root
        return {"id": i, "words": [words], "meta": {"heads": heads, "pos": ["NN"] * len(words), "words": words}}

    records = [rec("long", "the old dog saw a very small cat today".split()), rec("short", ["dogs", "bark"])]
    counts = {}
    sents = pr.sentences_from_model(tiny_model, tokenizer, records, max_len=64, batch_size=1, counts=counts)
    assert [s.id for s in sents] == ["long", "short"]  # extraction runs shortest first
    assert counts["sentences"] == 2 and [s.n for s in sents] == [9, 2]
    for s in sents:
        assert s.attn.dtype == np.float16 and s.attn.shape[-1] >= s.n
