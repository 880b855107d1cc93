import numpy as np
import pytest
import torch

from analysis.clark import probe_training
from analysis.clark.probe_data import (
    attach_vectors,
    attach_words,
    make_sentence,
    sentence_maps,
    sentences_from_model,
    subset_records,
)
from analysis.clark.probe_models import AttnProbe, MLPProbe
from analysis.clark.probe_training import (
    batches,
    probes_table,
    right_branching,
    run_probe,
    train_probes,
    with_paper_uas,
)
from analysis.shared.vectors import load_vectors


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
        sent = make_sentence(f"s{s}", {"heads": list(heads - 1), "pos": pos}, words=[f"w{i}" for i in range(W)])
        sent.attn = attn.astype(np.float16)
        sent.extra["vec"] = rng.normal(size=(W, 4)).astype(np.float32)
        out.append(sent)
    return out


def test_probe_reaches_100_when_one_head_points_at_the_gold_head():
    train = toy_sentences(60, seed=1)
    dev = toy_sentences(20, seed=2)
    probe = AttnProbe(n_heads=3)
    res, curve = probe_training.train(probe, train, dev, epochs=15, lr=0.1, batch_size=16, seed=0)
    assert res["uas"] == 1.0
    assert res["n_words"] == sum(int(s.scored.sum()) for s in dev)  # punctuation ('.') excluded
    assert curve[-1]["train_loss"] < curve[0]["train_loss"]
    assert probe.w[0] > probe.w[1:].abs().max()


def test_words_probe_also_reaches_100_and_runs_seeded():
    train = toy_sentences(60, seed=1)
    dev = toy_sentences(20, seed=2)
    results = []
    for _ in range(2):
        probe = AttnProbe(n_heads=3, dim=4)
        res, _ = probe_training.train(probe, train, dev, epochs=20, lr=0.1, batch_size=16, seed=0)
        results.append(res)
    assert results[0]["uas"] == 1.0
    assert results[0] == results[1]


def test_random_attention_is_near_chance():
    train = toy_sentences(60, seed=1, with_gold_head=None)
    dev = toy_sentences(20, seed=2, with_gold_head=None)
    res, _ = probe_training.train(AttnProbe(n_heads=3), train, dev, epochs=5, lr=0.1, batch_size=16)
    assert res["uas"] < 0.6


def test_right_branching_by_hand():
    # "a b c": b <- a (a's head is b), c <- b, c is the root: right-branching is all correct
    s = make_sentence("x", {"heads": [1, 2, -1], "pos": ["DT", "NN", "VB"]}, words=["a", "b", "c"])
    assert right_branching([s]) == {"uas": 1.0, "n_words": 3}
    s = make_sentence("y", {"heads": [-1, 0, 0], "pos": ["VB", "NN", "."]}, punct_pos=(".",), words=["a", "b", "."])
    # predictions: a->b (gold root: wrong), b->. (gold a: wrong), '.' excluded
    assert right_branching([s]) == {"uas": 0.0, "n_words": 2}


def test_batches_mask_candidates_and_pad():
    sents = toy_sentences(3, seed=3)
    (batch,) = list(batches(sents, 8, True, True))
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
    mlp = MLPProbe(dim=4, hidden=8)
    assert mlp(batch).shape == (3, W1, W1)


def test_sentence_maps_reorders_units_root_first():
    # pieces: [CLS] w0 w1a w1b [SEP]; attention from every piece to w1 pieces = 0.5/0.5
    word_ids = [-1, 0, 1, 1, -1]
    a = np.zeros((1, 1, 5, 5))
    a[..., 2] = a[..., 3] = 0.5
    m = sentence_maps(a, word_ids, "COOOS", 2)
    assert m.shape == (1, 3, 3)
    np.testing.assert_allclose(m[0, :, 2], 1.0)  # everything goes to word 1 (unit 2)
    with pytest.raises(ValueError):
        sentence_maps(a, word_ids, "OOOOS", 2)


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
    res, _ = probe_training.train(MLPProbe(dim=4, hidden=8), sents[:40], sents[40:], epochs=30, lr=0.05, batch_size=8)
    assert res["uas"] > 0.8


def test_sentences_from_model_streams_and_keeps_input_order(tiny_model, tokenizer):
    def rec(i, words):
        heads = [len(words) - 1] * (len(words) - 1) + [-1]  # every word -> the last; the last is root
        return {"id": i, "words": [words], "meta": {"heads": heads, "pos": ["NN"] * len(words), "words": words}}

    records = [rec("long", "the old dog saw a very small cat today".split()), rec("short", ["dogs", "bark"])]
    counts = {}
    sents = sentences_from_model(
        tiny_model, tokenizer, records, max_len=64, batch_size=1, punct_pos=(), how="mean", counts=counts
    )
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


def test_train_probes_in_table_order_and_run_probe_is_seeded():
    sents = {"train": toy_sentences(20, seed=1), "dev": toy_sentences(8, seed=2)}
    lr = {"attention-only": 0.1, "attention-and-words": 0.05, "word-vectors MLP + distance": 0.05}
    results, curves = train_probes(sents, dim=4, epochs=2, lr=lr, batch_size=8, mlp_hidden=8, seed=0)
    names = ["attention-only", "attention-and-words", "right-branching", "word-vectors MLP + distance"]
    assert [r["probe"] for r in results] == names
    assert len(curves) == 2 * 3 and {c["probe"] for c in curves} == set(lr)
    assert results[2] == {"probe": "right-branching", **right_branching(sents["dev"])}
    again = run_probe("attention-only", AttnProbe(3), sents["train"], sents["dev"], 2, 0.1, 8, 0)
    assert again[0] == results[0]
    table = with_paper_uas(probes_table(results, "m", 20, 8, "toy"), {"attention-only": 61})
    assert list(table.columns[:2]) == ["model", "probe"] and table.paper_uas.iloc[0] == 61
    assert list(table.columns[-4:]) == ["paper_uas", "train_sentences", "dev_sentences", "vectors"]
    assert table.paper_uas.iloc[1:].isna().all()
    assert table[["train_sentences", "dev_sentences", "vectors"]].iloc[0].tolist() == [20, 8, "toy"]


def test_plot_probes():
    import pandas as pd

    from analysis.clark.probe_plots import plot_probes
    from analysis.shared.plots import close

    table = pd.DataFrame({"probe": ["a", "b"], "uas": [0.6, 0.1], "paper_uas": [61, np.nan]})
    curves = pd.DataFrame({"probe": ["a", "a"], "epoch": [1, 2], "dev_uas": [0.5, 0.6]})
    fig = plot_probes(table, curves, "m", "dev", 10, 5)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["a", "b"]
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
    write_table(probes_table(results, "m", 4, 2, "toy"), tmp_path / "scores.csv")
    back = pd.read_csv(tmp_path / "scores.csv", float_precision="round_trip")
    write_table(with_paper_uas(back, paper), tmp_path / "split.csv")
    table = probes_table(results, "m", 4, 2, "toy")  # in one go, as before the split
    table.insert(5, "paper_uas", [paper.get(p, np.nan) for p in table.probe])
    write_table(table, tmp_path / "whole.csv")
    assert (tmp_path / "split.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
