"""Head accuracy per relation, both directions, and the offset baseline on hand-made maps."""

import numpy as np
import pandas as pd
import pytest

from analysis.clark.syntax.baselines import arc_baseline, offset_prediction, root_baseline
from analysis.clark.syntax.examples import best_head_row, example_arcs, example_table, pick_example
from analysis.clark.syntax.plots import plot_dep_heads, plot_dep_heads_grid, plot_dobj_head_example
from analysis.clark.syntax.predictions import predictions, word_text
from analysis.clark.syntax.replicates import table1_replicates
from analysis.clark.syntax.scorer import ALL, ALL_NO_ROOT, DepScorer, GoldWindow, score_examples
from analysis.clark.syntax.tables import baselines, grid_table, paper_table, summary, table1, tidy
from analysis.core.word_level import word_maps
from analysis.shared.plots import close
from conftest import FIXTURES, ROOT

# units: [CLS] the dog saw cats [SEP]; gold: the->dog (det), dog->saw (nsubj), saw root, cats->saw (dobj)
UNIT_WORD = np.array([-1, 0, 1, 2, 3, -1])
HEADS = [1, 2, -1, 2]
RELS = ["det", "nsubj", "root", "dobj"]
H0 = [  # dep->head perfect despite heavy [CLS]/[SEP]/self attention
    [0.2, 0.2, 0.2, 0.2, 0.1, 0.1],
    [0.5, 0.3, 0.15, 0.03, 0.02, 0],
    [0.4, 0.04, 0.3, 0.2, 0.06, 0],
    [0, 0.05, 0.07, 0.2, 0.18, 0.5],
    [0, 0.01, 0.09, 0.3, 0.6, 0],
    [0.2, 0.2, 0.2, 0.2, 0.1, 0.1],
]
H1 = [  # the head word attends to its dependent (det, nsubj)
    [0.2, 0.2, 0.2, 0.2, 0.1, 0.1],
    [0.1, 0.5, 0.1, 0.3, 0, 0],
    [0.1, 0.4, 0.3, 0.1, 0.1, 0],
    [0.1, 0.1, 0.4, 0.3, 0.1, 0],
    [0.1, 0.5, 0.1, 0.1, 0.2, 0],
    [0.2, 0.2, 0.2, 0.2, 0.1, 0.1],
]
MAPS = np.array([[H0, H1]])  # (1 layer, 2 heads, 6, 6)


def scored(reverse="row", max_offset=3):
    sc = DepScorer(1, 2, max_offset=max_offset, how="mean", reverse=reverse)
    sc.add_word_maps(MAPS, UNIT_WORD, GoldWindow(HEADS, RELS, "s1"))
    return sc


def acc(sc, rel, direction):
    t = pd.DataFrame(tidy(sc))
    t = t[(t.relation == rel) & (t.direction == direction)].sort_values(["layer", "head"])
    return t.accuracy.round(4).tolist()


def test_predictions_exclude_specials_and_self():
    pred = predictions(MAPS, UNIT_WORD)
    assert pred[0, 0].tolist() == [-1, 1, 2, 3, 2, -1]
    assert pred[0, 1].tolist() == [-1, 2, 0, 1, 0, -1]


def test_accuracy_both_directions_by_hand():
    sc = scored()
    assert acc(sc, "det", "dep->head") == [1.0, 0.0]
    assert acc(sc, "det", "head->dep") == [0.0, 1.0]
    assert acc(sc, "nsubj", "head->dep") == [0.0, 1.0]
    assert acc(sc, "dobj", "dep->head") == [1.0, 0.0]
    assert acc(sc, "dobj", "head->dep") == [1.0, 0.0]
    # All counts the root arc (always wrong for a head); All (no root) leaves it out
    assert acc(sc, ALL, "dep->head") == [0.75, 0.0]
    assert acc(sc, ALL_NO_ROOT, "dep->head") == [1.0, 0.0]
    assert acc(sc, ALL, "head->dep") == [0.25, 0.5]
    assert acc(sc, ALL_NO_ROOT, "head->dep") == [round(1 / 3, 4), round(2 / 3, 4)]
    assert "root" not in sc.n and (sc.n[ALL], sc.n[ALL_NO_ROOT]) == (4, 3)
    assert (sc.counts["root_arcs"], sc.counts["root_arcs_scored"]) == (1, 1)


def test_transpose_reading_of_head_to_dep():
    # who attends most to the dependent: 'the' <- saw (.05), 'dog' <- the (.15), 'cats' <- saw (.18)
    sc = scored(reverse="transpose")
    assert acc(sc, "det", "head->dep")[0] == 0.0
    assert acc(sc, "dobj", "head->dep")[0] == 1.0
    assert acc(sc, ALL_NO_ROOT, "head->dep")[0] == round(1 / 3, 4)


def test_offset_baseline_best_per_relation():
    s = {(r["relation"], r["direction"]): r for r in summary(scored())}
    assert (s["det", "dep->head"]["best_offset"], s["det", "dep->head"]["baseline_accuracy"]) == (1, 1.0)
    assert (s["dobj", "dep->head"]["best_offset"], s["dobj", "dep->head"]["baseline_accuracy"]) == (-1, 1.0)
    assert s[ALL_NO_ROOT, "dep->head"]["best_offset"] == 1
    assert s[ALL_NO_ROOT, "dep->head"]["baseline_accuracy"] == pytest.approx(2 / 3)
    assert (s[ALL, "dep->head"]["best_offset"], s[ALL, "dep->head"]["baseline_accuracy"]) == (1, 0.5)
    assert (s[ALL, "head->dep"]["best_offset"], s["dobj", "head->dep"]["best_offset"]) == (-1, 1)
    assert (s[ALL, "dep->head"]["best_layer"], s[ALL, "dep->head"]["best_head"]) == (1, 1)
    assert (s[ALL, "head->dep"]["best_layer"], s[ALL, "head->dep"]["best_head"]) == (1, 2)
    assert s[ALL, "head->dep"]["accuracy"] == pytest.approx(2 / 4)


def test_offsets_beyond_k_are_not_tried():
    sc = DepScorer(1, 1, max_offset=1, how="mean", reverse="row")
    wm = np.full((1, 1, 5, 5), 0.2)
    sc.add_word_maps(wm, np.arange(5), GoldWindow([-1, 0, 0, 0, 0], ["root", "x", "x", "x", "x"], "s"))
    base = {(r["offset"], r["direction"]): r["accuracy"] for r in baselines(sc) if r["relation"] == "x"}
    assert set(base) == {(-1, "dep->head"), (1, "dep->head"), (-1, "head->dep"), (1, "head->dep")}
    assert base[-1, "dep->head"] == 0.25  # only word 1's head is one to the left


def test_split_windows_score_only_arcs_inside_one_window():
    sc = DepScorer(1, 1, max_offset=2, how="mean", reverse="row")
    w1 = np.full((1, 1, 4, 4), 0.25)  # [CLS] the dog [SEP]
    w2 = np.full((1, 1, 4, 4), 0.25)  # [CLS] saw cats [SEP]
    sc.add_word_maps(w1, np.array([-1, 0, 1, -1]), GoldWindow(HEADS, RELS, "s1", part=0))
    sc.add_word_maps(w2, np.array([-1, 2, 3, -1]), GoldWindow(HEADS, RELS, "s1", part=1))
    c = sc.finish_counts()
    assert (c["sentences"], c["sentences_split"], c["windows_of_split_sentences"]) == (1, 1, 2)
    assert (c["arcs_total"], c["arcs_scored"], c["arcs_lost_to_split"], c["arcs_lost"]) == (3, 2, 1, 1)
    assert c["arcs_lost_by_relation"] == {"nsubj": 1}
    assert sc.n == {"det": 1, "dobj": 1, ALL: 3, ALL_NO_ROOT: 2}  # the root arc (saw) in All only
    # the only other word in each window is the gold head: always right (but on the root arc)
    assert acc(sc, ALL_NO_ROOT, "dep->head") == [1.0] and acc(sc, ALL, "dep->head") == [round(2 / 3, 4)]


def test_add_uses_word_level_maps():
    # pieces: [CLS] the do ##g saw [SEP]; 'dog' is two pieces
    rng = np.random.default_rng(0)
    a = rng.random((1, 2, 6, 6))
    a /= a.sum(-1, keepdims=True)
    wid = [-1, 0, 1, 1, 2, -1]
    heads, rels = [1, 2, -1], ["det", "nsubj", "root"]
    s1, s2 = DepScorer(1, 2, 3, "mean", "row"), DepScorer(1, 2, 3, "mean", "row")
    s1.add(a, wid, GoldWindow(heads, rels, "s"))
    wm, uw = word_maps(a, wid, "mean")
    s2.add_word_maps(wm, uw, GoldWindow(heads, rels, "s"))
    assert tidy(s1) == tidy(s2)


def test_unlabeled_relation_counts_in_all_only():
    sc = DepScorer(1, 2, 3, "mean", "row")
    sc.add_word_maps(MAPS, UNIT_WORD, GoldWindow(HEADS, ["_"] * 4, "s1"))
    assert set(sc.n) == {ALL, ALL_NO_ROOT}


def test_table1_min_count_and_paper_numbers():
    paper = paper_table(ROOT / "config" / "paper_numbers" / "clark_table1.csv")
    main, rare = table1(scored(), paper, min_count=2)
    assert list(dict.fromkeys(main.relation)) == [ALL, ALL_NO_ROOT] and set(rare.relation) == {"det", "nsubj", "dobj"}
    det = rare[(rare.relation == "det") & (rare.direction == "dep->head")].iloc[0]
    assert (det.paper_head, det.paper_accuracy, det.paper_baseline) == ("8-11", 94.3, 51.7)
    assert main.best_direction.sum() == 2
    # the paper's All sits beside the All computed its way (root arcs in), not beside All (no root)
    assert main[main.relation == ALL].paper_accuracy.eq(34.5).all()
    assert main[main.relation == ALL_NO_ROOT].paper_accuracy.isna().all()


def test_plots_draw_the_tables():
    sc = scored()
    main, _ = table1(sc, None, min_count=1)
    fig = plot_dep_heads(main, "m", "c")
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()][:2] == ["All (n=4)", "All (no root) (n=3)"]
    close(fig)
    cells = grid_table(pd.DataFrame(tidy(sc)), main, ["det", "nsubj"])
    fig = plot_dep_heads_grid(cells, "m", "c", 1, 2)
    assert [ax.get_title().split(" ")[0] for ax in fig.axes[:3]] == [ALL, "det", "nsubj"]
    close(fig)
    labels = ["[CLS]", "the", "dog", "saw", "cats", "[SEP]"]
    arcs = example_arcs(UNIT_WORD, HEADS, RELS, "dep->head")
    best = {"relation": "dobj", "layer": 1, "head": 1, "direction": "dep->head", "accuracy": 1.0}
    fig = plot_dobj_head_example(np.asarray(H0), labels, arcs, best, "m", "a:0")
    assert fig.axes[0].get_title().startswith("m: head 1-1\nbest dobj head (dep->head, accuracy 1.00)")
    close(fig)


def test_grid_table_holds_the_plotted_cells():
    # All, by hand: dep->head, head 1 gets the/dog/cats right and the root arc wrong (3/4), head 2
    # none (0/4); head->dep at best 2/4 (head 2), so the panel shows dep->head with head 1 boxed
    sc = scored()
    main, _ = table1(sc, None, min_count=1)
    cells = grid_table(pd.DataFrame(tidy(sc)), main, ["det", "nsubj", "amod"])
    assert list(dict.fromkeys(cells.relation)) == [ALL, "det", "nsubj"]  # amod absent: no panel
    all_ = cells[cells.relation == ALL]
    assert all_.direction.unique().tolist() == ["dep->head"]
    assert all_.accuracy.round(4).tolist() == [0.75, 0.0] and all_.best.tolist() == [True, False]
    assert (cells.groupby("relation").best.sum() == 1).all()


class _Ex:
    """A stand-in for ``storage.Example`` with float maps."""

    def __init__(self, id, attn, word_ids, meta):
        self.id, self.attn, self.word_ids, self.meta = id, attn, word_ids, meta

    def head_map(self, layer, head):
        return self.attn[layer - 1, head - 1]


def test_score_examples_needs_gold_trees():
    with pytest.raises(ValueError, match="no gold"):
        score_examples([_Ex("a", MAPS, [-1, 0, -1], {})], 1, 2, 3, "mean", "row")


def test_extraction_split_end_to_end(tmp_path):
    """Real tokenizer + tiny random model: a sentence over max_len is split into windows,
    every arc is either scored in one window or counted as lost."""
    from analysis.core.corpora.dependency import read_treebank
    from analysis.core.extraction import extract_shard
    from analysis.core.extraction_settings import ShardSettings
    from analysis.core.models import TINY, load_model, load_tokenizer
    from analysis.core.storage import Shards

    fix = FIXTURES / "dependency"
    recs, _ = read_treebank(fix, "conllx", files="*.conll10")
    tok = load_tokenizer(TINY)
    settings = ShardSettings(max_len=5, policy="split", progress=False)
    extract_shard(load_model(TINY, device="cpu"), tok, recs, tmp_path / "shard-0", settings)
    shards = Shards([tmp_path / "shard-0.npy"])
    sc = score_examples(shards, shards.n_layers, shards.n_heads, 3, "mean", "row")
    c = sc.finish_counts()
    assert c["sentences"] == len(recs) and c["sentences_split"] >= 2
    assert c["arcs_scored"] + c["arcs_lost"] == c["arcs_total"]
    assert c["arcs_lost_to_split"] == c["arcs_lost"] > 0


def test_pick_example_prefers_a_sentence_the_head_gets_right():
    wid = [-1, 0, 1, 2, 3, -1]
    meta = {"heads": HEADS, "rels": RELS}
    wrong = _Ex("a:0", MAPS[:, ::-1], wid, meta)  # heads swapped: head 1-1 is now H1
    right = _Ex("a:1", MAPS, wid, meta)
    kw = {"max_words": 16, "direction": "dep->head", "how": "mean"}
    assert pick_example([wrong, right], "dobj", None, head=(1, 1), min_words=2, **kw).id == "a:1"
    assert pick_example([wrong, right], "dobj", None, head=None, min_words=2, **kw).id == "a:0"
    assert pick_example([wrong, right], "dobj", "a:1", head=None, **kw).id == "a:1"
    with pytest.raises(ValueError, match="no sentence"):
        pick_example([right], "prt", None, head=None, min_words=2, **kw)


def test_example_arcs_and_table():
    # units: [CLS] the dog saw cats [SEP]; the root arc (saw) is not drawn
    arcs = example_arcs(UNIT_WORD, HEADS, RELS, "dep->head")
    assert arcs == [(1, 2, "det"), (2, 3, "nsubj"), (4, 3, "dobj")]
    assert example_arcs(UNIT_WORD, HEADS, RELS, "head->dep") == [(2, 1, "det"), (3, 2, "nsubj"), (3, 4, "dobj")]
    labels = ["[CLS]", "the", "dog", "saw", "cats", "[SEP]"]
    t = example_table("a:0", 1, 1, np.asarray(H0), labels, arcs)
    assert len(t) == 36 and list(t.columns[:3]) == ["sentence", "layer", "head"]
    gold = t[t.gold_arc != ""]
    assert gold[["from_word", "to_word", "gold_arc"]].values.tolist() == [
        ["the", "dog", "det"],
        ["dog", "saw", "nsubj"],
        ["cats", "saw", "dobj"],
    ]
    assert t.attention[(t.from_index == 4) & (t.to_index == 3)].item() == pytest.approx(0.3)


def test_best_head_row():
    main, _ = table1(scored(), None, min_count=1)
    row = best_head_row(main, "dobj", "dep->head")
    assert (row["layer"], row["head"], row["accuracy"]) == (1, 1, 1.0)
    with pytest.raises(ValueError, match="t.csv: no row for relation 'prt'"):
        best_head_row(main, "prt", "dep->head", source="t.csv")


def test_word_text_joins_pieces():
    ex = _Ex("a:0", None, [-1, 0, 1, 1, -1], {})
    ex.tokens = ["[CLS]", "the", "do", "##g", "[SEP]"]
    assert (word_text(ex, 0), word_text(ex, 1), word_text(ex, 2)) == ("the", "dog", "?")


def test_poss_scored_through_the_clitic():
    # units: [CLS] john 's dog barked [SEP]; gold: john -poss-> dog, 's -possessive-> john,
    # dog -nsubj-> barked. The head attends from 's (not from john) to dog.
    unit_word = np.array([-1, 0, 1, 2, 3, -1])
    heads, rels = [2, 0, 3, -1], ["poss", "possessive", "nsubj", "root"]
    m = np.full((6, 6), 0.01)
    m[1, 4] = m[2, 3] = m[3, 4] = m[4, 3] = 0.9  # john -> barked (wrong), 's -> dog
    m /= m.sum(-1, keepdims=True)
    maps = m[None, None]
    with_words, without = DepScorer(1, 1, 3, "mean", "transpose"), DepScorer(1, 1, 3, "mean", "transpose")
    with_words.add_word_maps(maps, unit_word, GoldWindow(heads, rels, "s", words=["john", "'s", "dog", "barked"]))
    without.add_word_maps(maps, unit_word, GoldWindow(heads, rels, "s"))
    poss = lambda sc: sc.correct["poss"][0, 0, 0]  # noqa: E731  (dep->head)
    assert poss(with_words) == 1 and poss(without) == 0
    assert with_words.counts["poss_scored_via_clitic"] == 1 and without.counts["poss_scored_via_clitic"] == 0


# --------------------------------------------------------------------------- the paper's definitions
# Each case is one where the old definition and the paper's (the authors' code) give different
# answers; the paper's is asserted.


def _possessor_sentence(clitic="'s"):
    """[CLS] john <clitic> dog barked [SEP]: john -poss-> dog, the clitic -possessive-> john,
    dog -nsubj-> barked, barked root; every word attends to the next one."""
    unit_word = np.array([-1, 0, 1, 2, 3, -1])
    m = np.full((6, 6), 0.01)
    for u in range(1, 4):
        m[u, u + 1] = 0.9
    m[4, 3] = 0.9
    m /= m.sum(-1, keepdims=True)
    words = ["john", clitic, "dog", "barked"]
    return m[None, None], unit_word, [2, 0, 3, -1], ["poss", "possessive", "nsubj", "root"], words


def _poss_baseline(sc):
    return {
        r["offset"]: r["accuracy"] for r in baselines(sc) if r["relation"] == "poss" and r["direction"] == "dep->head"
    }


def test_poss_baseline_is_scored_through_the_clitic_too():
    # the possessor's head (dog) is two words on, the clitic's one: through the clitic the
    # offset +1 is right (old: only +2, the possessor's own offset)
    maps, unit_word, heads, rels, words = _possessor_sentence()
    sc = DepScorer(1, 1, 3, "mean", "transpose")
    sc.add_word_maps(maps, unit_word, GoldWindow(heads, rels, "s", words=words))
    base = _poss_baseline(sc)
    assert base[1] == 1.0 and base[2] == 0.0
    best = {(r["relation"], r["direction"]): r for r in summary(sc)}["poss", "dep->head"]
    assert (best["best_offset"], best["baseline_accuracy"], best["accuracy"]) == (1, 1.0, 1.0)


def test_poss_clitics_follow_the_authors_by_default():
    # the authors' code routes through 's and s' only; PTB's plural ' is routed on request
    maps, unit_word, heads, rels, words = _possessor_sentence(clitic="'")
    default, wide = DepScorer(1, 1, 3, "mean", "transpose"), DepScorer(1, 1, 3, "mean", "transpose", ("'s", "s'", "'"))
    for sc in (default, wide):
        sc.add_word_maps(maps, unit_word, GoldWindow(heads, rels, "s", words=words))
    assert (default.counts["poss_scored_via_clitic"], wide.counts["poss_scored_via_clitic"]) == (0, 1)
    assert (_poss_baseline(default)[2], _poss_baseline(wide)[1]) == (1.0, 1.0)


def test_all_counts_the_root_arc_as_wrong_for_every_head():
    # a head that gets every other arc right: the paper's All is 3/4, the root-free one 1
    sc = scored()
    assert tidy(sc)[0]["relation"] == ALL and acc(sc, ALL, "dep->head")[0] == 0.75
    assert acc(sc, ALL_NO_ROOT, "dep->head")[0] == 1.0


def test_a_one_word_sentence_root_arc_is_wrong_for_a_head():
    # one word, no other word to point at: the head predicts nothing, which must not match the root
    sc = DepScorer(1, 1, 2, "mean", "transpose")
    sc.add_word_maps(np.full((1, 1, 3, 3), 1 / 3), np.array([-1, 0, -1]), GoldWindow([-1], ["root"], "s"))
    assert sc.n == {ALL: 1} and acc(sc, ALL, "dep->head") == [0.0]
    # the offsets before the first word predict the root: right; after it, the word itself: wrong
    base = {r["offset"]: r["accuracy"] for r in baselines(sc) if r["direction"] == "dep->head"}
    assert base == {-2: 1.0, -1: 1.0, 1: 0.0, 2: 0.0}


def test_offset_baseline_clamps_like_the_authors_code():
    assert [offset_prediction(0, o, 3) for o in (-3, -1, 1, 3)] == [-1, -1, 1, 2]
    assert [offset_prediction(2, o, 3) for o in (-3, -1, 1)] == [-1, 1, 2]
    # "run now fast": now -> run, fast -> run, run root. Offset -2: run -> before the first word
    # = the root (right, old: wrong), fast -> run (right): All 2/3 (old, root arcs left out: 1/2)
    sc = DepScorer(1, 1, 3, "mean", "transpose")
    sc.add_word_maps(np.full((1, 1, 3, 3), 1 / 3), np.arange(3), GoldWindow([-1, 0, 0], ["root", "x", "x"], "s"))
    base = {(r["relation"], r["offset"]): r["accuracy"] for r in baselines(sc) if r["direction"] == "dep->head"}
    assert base[ALL, -2] == pytest.approx(2 / 3) and base[ALL_NO_ROOT, -2] == 0.5
    # "a b c": a -> c, b -> c. Offset +3 from a or b runs past the last word, which is the head
    sc = DepScorer(1, 1, 3, "mean", "transpose")
    sc.add_word_maps(np.full((1, 1, 3, 3), 1 / 3), np.arange(3), GoldWindow([2, 2, -1], ["x", "x", "root"], "s"))
    base = {(r["relation"], r["offset"]): r["accuracy"] for r in baselines(sc) if r["direction"] == "dep->head"}
    assert base["x", 3] == 1.0 and base["x", 1] == 0.5  # old: +3 never right


def test_the_baselines_of_one_arc_by_hand():
    offsets = [-2, -1, 1, 2]
    # "a b c d", arc b -> d (d=1, h=3), no clitic (v = d): dep->head 1 + o = 3 for o = 2 only;
    # head->dep 3 + o = 1 for o = -2 only
    assert arc_baseline(1, 3, 1, 4, offsets, "transpose").tolist() == [
        [False, False, False, True],
        [True] + [False] * 3,
    ]
    # through a clitic at v = 2: dep->head 2 + 1 = 3, and 2 + 2 clamps to the last word, 3;
    # head->dep, row reading: 3 + o in {d, v} = {1, 2} for o = -2, -1; transpose: v only, o = -1
    assert arc_baseline(1, 3, 2, 4, offsets, "row").tolist() == [[False, False, True, True], [True, True, False, False]]
    assert arc_baseline(1, 3, 2, 4, offsets, "transpose")[1].tolist() == [False, True, False, False]
    # the root arc of word 1: 1 - 2 falls before the first word (the root); no offset finds a root's dependent
    assert root_baseline(1, 4, offsets).tolist() == [[True, False, False, False], [False] * 4]


def test_paper_numbers_have_auxpass():
    paper = paper_table(ROOT / "config" / "paper_numbers" / "clark_table1.csv").set_index("relation")
    assert tuple(paper.loc["auxpass", ["paper_head", "paper_accuracy", "paper_baseline"]]) == ("4-10", 82.5, 40.5)
    assert tuple(paper.loc[ALL, ["paper_head", "paper_accuracy", "paper_baseline"]]) == ("7-6", 34.5, 26.3)


def test_table1_counts_unscored_root_arcs_in_all_only():
    main, _ = table1(scored(), None, min_count=1, counts={"arcs_lost": 2, "root_arcs_lost": 1})
    n_unscored = main.drop_duplicates("relation").set_index("relation").n_unscored
    assert (n_unscored[ALL], n_unscored[ALL_NO_ROOT], n_unscored["det"]) == (3, 2, 0)


def test_replicates_resample_sentences_and_choose_the_best_head_again():
    """Table 1's replicates: weighted sums of each sentence's tallies, best head chosen per replicate."""
    sc = DepScorer(1, 2, max_offset=1, how="mean", reverse="row")
    sc.add_word_maps(MAPS, UNIT_WORD, GoldWindow(HEADS, RELS, "s1"))
    # s2: the same words; head 1 attends to the gold head of every word, head 0 to none of them
    sc.add_word_maps(MAPS[:, ::-1], UNIT_WORD, GoldWindow(HEADS, RELS, "s2"))
    assert list(sc.by_sentence) == ["s1", "s2"]
    weights = np.array([[1, 1], [2, 0], [0, 2]])
    rep = table1_replicates(sc, ["det"], weights)
    det = rep[rep.direction == "dep->head"].set_index("replicate")
    # det (the->dog): s1 head 0 right, head 1 wrong; s2 the other way round
    # both sentences: each head 1 of 2 -> best 0.5; s1 twice: head 0 2 of 2 -> 1; s2 twice: head 1 -> 1
    assert det.accuracy.tolist() == [0.5, 1.0, 1.0] and det.n.tolist() == [2, 2, 2]
    # the offset baseline: "the" -> "dog" is offset +1 in both sentences
    assert det.baseline_accuracy.tolist() == [1.0, 1.0, 1.0]


def test_replicates_with_every_sentence_once_give_the_point_table():
    sc = DepScorer(1, 2, max_offset=3, how="mean", reverse="transpose")
    for s in ("s1", "s2", "s3"):
        sc.add_word_maps(MAPS if s != "s2" else MAPS[:, ::-1], UNIT_WORD, GoldWindow(HEADS, RELS, s))
    main, _ = table1(sc, None, min_count=1)
    rep = table1_replicates(sc, list(dict.fromkeys(main.relation)), np.ones((1, 3), dtype=int))
    merged = main.merge(rep, on=["relation", "direction"], suffixes=("", "_rep"))
    assert len(merged) == len(main)
    assert np.allclose(merged.accuracy, merged.accuracy_rep)
    assert np.allclose(merged.baseline_accuracy, merged.baseline_accuracy_rep)
    assert (merged.n == merged.n_rep).all()
