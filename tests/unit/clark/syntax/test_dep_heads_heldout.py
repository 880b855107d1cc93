"""Table 1's best head and offset chosen on one half of the documents and scored on the other
(analysis.clark.syntax.heldout), and the documents as the bootstrap's clusters."""

import numpy as np
from test_dep_heads import HEADS, MAPS, RELS, UNIT_WORD

from analysis.clark.syntax.heldout import (
    cross_fit,
    document_of,
    heldout_table,
    sentence_clusters,
    two_folds,
    with_heldout,
)
from analysis.clark.syntax.replicates import table1_replicates
from analysis.clark.syntax.scorer import DepScorer, GoldWindow
from analysis.clark.syntax.tables import table1


def test_cross_fit_by_hand_differs_from_the_in_sample_max():
    # 4 units, one direction, 3 heads A B C; units 0-1 are half 0, units 2-3 half 1 (10 arcs each)
    hits = np.array([[[5, 2, 1]], [[3, 4, 1]], [[1, 3, 2]], [[2, 4, 3]]])
    fold = np.array([0, 0, 1, 1])
    # half 0: A 8, B 6, C 2; half 1: A 3, B 7, C 5; in-sample: A 11, B 13, C 7 -> max B 13 of 20 = 0.65
    assert hits.sum(0).max() / 20 == 0.65
    correct, chosen = cross_fit(hits, fold, np.ones((1, 4)))
    # half 0 scored with half 1's choice (B): 6; half 1 with half 0's choice (A): 3 -> 9 of 20 = 0.45
    assert chosen[0, :, 0].tolist() == [1, 0]
    assert correct[0, 0] == 9 and correct[0, 0] / 20 == 0.45  # 0.20 below the in-sample max
    # a replicate drawing unit 0 twice and unit 3 twice: half 0 A 10 B 4, half 1 A 4 B 8 C 6
    correct, chosen = cross_fit(hits, fold, np.array([[2, 0, 0, 2]]))
    assert chosen[0, :, 0].tolist() == [1, 0] and correct[0, 0] == 4 + 4


def scorer():
    sc = DepScorer(1, 2, max_offset=1, how="mean", reverse="row")
    sc.add_word_maps(MAPS, UNIT_WORD, GoldWindow(HEADS, RELS, "docA:0"))
    # docB: head 1 attends to the gold head of every word, head 0 to none of them
    sc.add_word_maps(MAPS[:, ::-1], UNIT_WORD, GoldWindow(HEADS, RELS, "docB:0"))
    return sc


def test_heldout_columns_beside_the_in_sample_best_head():
    sc = scorer()
    clusters, unit = sentence_clusters(sc)
    assert (clusters, unit) == (["docA", "docB"], "document")
    folds = np.array([0, 1])
    main, _ = table1(sc, None, min_count=1)
    out = with_heldout(main, heldout_table(sc, folds))
    det = out[(out.relation == "det") & (out.direction == "dep->head")].iloc[0]
    # det: docA head 1-1 right, 1-2 wrong; docB the other way round: in-sample 1 of 2 (0.5); held out,
    # docA is scored with docB's best head (1-2: wrong) and docB with docA's (1-1: wrong): 0 of 2
    assert det.accuracy == 0.5 and det.heldout_accuracy == 0.0 and det.heldout_heads == "1-2/1-1"
    # the offset +1 is right in both halves, and chosen on both
    assert det.heldout_baseline_accuracy == 1.0 and det.heldout_offsets == "1/1"
    assert out[main.columns].equals(main)  # the in-sample columns and rows unchanged


def test_replicates_choose_again_and_leave_a_half_without_arcs_nan():
    sc = scorer()
    rep = table1_replicates(sc, ["det"], np.array([[1, 1], [2, 0], [0, 3]]), np.array([0, 1]))
    det = rep[rep.direction == "dep->head"].set_index("replicate")
    assert det.accuracy.tolist() == [0.5, 1.0, 1.0]
    assert det.heldout_accuracy.iloc[0] == 0.0 and det.heldout_baseline_accuracy.iloc[0] == 1.0
    assert det.heldout_accuracy.iloc[1:].isna().all()  # one half not drawn: nothing to choose on
    assert det.n.tolist() == [2, 2, 3]  # the replicate's own arcs (3 draws of docB)


def test_two_folds_are_seeded_balanced_halves_of_the_clusters():
    clusters = ["d1", "d1", "d2", "d3", "d4", "d5", "d5"]
    f = two_folds(clusters, 0)
    assert f[0] == f[1] and f[5] == f[6]
    per_doc = dict(zip(clusters, f))
    assert sorted(per_doc.values()) == [0, 0, 0, 1, 1]  # ceil(5 / 2) documents in half 0
    assert (two_folds(clusters, 0) == f).all()


def test_a_corpus_of_one_document_is_resampled_by_sentence():
    sc = DepScorer(1, 2, max_offset=1, how="mean", reverse="row")
    for s in ("ewt:0", "ewt:1"):
        sc.add_word_maps(MAPS, UNIT_WORD, GoldWindow(HEADS, RELS, s))
    assert sentence_clusters(sc) == (["ewt:0", "ewt:1"], "sentence")
    assert document_of("GUM_news_x:12#1") == "GUM_news_x"
