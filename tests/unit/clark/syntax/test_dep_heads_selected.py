"""Table 1's head, offset and directions chosen on another corpus and scored on every scored
document (analysis.clark.syntax.selected): hand-made selection tables, hand-counted hits."""

import numpy as np
import pandas as pd
import pytest
from test_dep_heads import HEADS, MAPS, RELS, UNIT_WORD

from analysis.clark.syntax.replicates import table1_replicates
from analysis.clark.syntax.scorer import ALL, ALL_NO_ROOT, DepScorer, GoldWindow
from analysis.clark.syntax.selected import (
    check_choice,
    selected_replicates,
    selected_table,
    selection,
    selection_counts,
    with_selected,
)
from analysis.clark.syntax.tables import baselines, table1, tidy


def heads_table(rows):
    return pd.DataFrame(rows, columns=["layer", "head", "relation", "direction", "correct", "n"])


def offsets_table(rows):
    return pd.DataFrame(rows, columns=["relation", "direction", "offset", "correct"])


FULL = heads_table(
    [
        # det: 1-2 dep->head and 2-1 head->dep tie at 5 correct: dep->head wins
        (1, 1, "det", "dep->head", 3, 10),
        (1, 2, "det", "dep->head", 5, 10),
        (2, 1, "det", "head->dep", 5, 10),
        (1, 2, "det", "head->dep", 2, 10),
        # nsubj: head->dep best (4), 1-1 and 1-2 tie there: the lower head
        (1, 1, "nsubj", "dep->head", 1, 6),
        (1, 2, "nsubj", "dep->head", 2, 6),
        (1, 2, "nsubj", "head->dep", 4, 6),
        (1, 1, "nsubj", "head->dep", 4, 6),
    ]
)
OFFSETS = offsets_table(
    [
        # det: dep->head +1 and head->dep -1 tie at 4: dep->head wins
        ("det", "dep->head", -1, 2),
        ("det", "dep->head", 1, 4),
        ("det", "head->dep", -1, 4),
        ("det", "head->dep", 1, 1),
        # nsubj: -1 and +1 tie in dep->head: the negative one
        ("nsubj", "dep->head", 1, 3),
        ("nsubj", "dep->head", -1, 3),
        ("nsubj", "head->dep", -1, 1),
        ("nsubj", "head->dep", 1, 0),
    ]
)


def test_selection_by_hand_with_ties():
    c = selection(FULL, OFFSETS, "train").set_index("relation")
    assert c.loc["det", ["layer", "head", "direction"]].tolist() == [1, 2, "dep->head"]
    assert c.loc["nsubj", ["layer", "head", "direction"]].tolist() == [1, 1, "head->dep"]
    assert c.loc["det", ["offset", "baseline_direction"]].tolist() == [1, "dep->head"]
    assert c.loc["nsubj", ["offset", "baseline_direction"]].tolist() == [-1, "dep->head"]
    assert c.loc["det", "selection_n"] == 10 and (c["selected_on"] == "train").all()


def test_selection_needs_its_columns_and_names_the_table():
    with pytest.raises(ValueError, match="full.csv: .*correct"):
        selection(FULL.drop(columns="correct"), OFFSETS, "train", ("full.csv", "b.csv"))
    with pytest.raises(ValueError, match="b.csv: no offset row .*nsubj"):
        selection(FULL, OFFSETS[OFFSETS.relation == "det"], "train", ("full.csv", "b.csv"))


def two_docs():
    sc = DepScorer(1, 2, max_offset=1, how="mean", reverse="row")
    sc.add_word_maps(MAPS, UNIT_WORD, GoldWindow(HEADS, RELS, "docA:0"))
    # docB: the two heads swapped
    sc.add_word_maps(MAPS[:, ::-1], UNIT_WORD, GoldWindow(HEADS, RELS, "docB:0"))
    return sc


def test_the_choice_of_the_own_tables_is_the_in_sample_best_row():
    # chosen on the scored corpus itself, the choice is the in-sample table's best head and direction
    sc = two_docs()
    main, _ = table1(sc, None, min_count=1)
    c = selection(pd.DataFrame(tidy(sc)), pd.DataFrame(baselines(sc)), "self").set_index("relation")
    for _, row in main[main.best_direction].iterrows():
        assert c.loc[row.relation, ["layer", "head", "direction"]].tolist() == [row.layer, row["head"], row.direction]


def test_selected_scores_by_hand_and_never_chosen_again():
    sc = two_docs()
    # det dep->head: docA head 1-1 right and 1-2 wrong, docB the other way; offset +1 right in both
    choice = selection(
        heads_table([(1, 2, "det", "dep->head", 9, 9), (1, 1, "det", "dep->head", 1, 9)]),
        offsets_table([("det", "dep->head", 1, 9), ("det", "head->dep", -1, 0)]),
        "train",
    )
    point = selected_table(sc, choice).set_index("relation")
    assert point.loc["det", "selected_accuracy"] == 0.5  # 1-2 right in docB only: 1 of 2
    assert point.loc["det", "selected_baseline_accuracy"] == 1.0
    assert point.loc["det", ["selected_head", "selected_direction", "selected_offset"]].tolist() == [
        "1-2",
        "dep->head",
        1,
    ]
    # replicates: docA twice (1-2 right 0 of 2), docB three times (3 of 3), both once (1 of 2): the
    # same head every time, though 1-1 is the better one on the first replicate
    rep = selected_replicates(sc, choice, np.array([[2, 0], [0, 3], [1, 1]]))
    det = rep[rep.relation == "det"].set_index("replicate")
    assert det.selected_accuracy.tolist() == [0.0, 1.0, 0.5]
    assert det.selected_baseline_accuracy.tolist() == [1.0, 1.0, 1.0]


def test_head_to_dependent_choice_scores_that_direction():
    sc = two_docs()
    # det head->dep: head 1-2 right in docA, 1-1 in docB
    choice = selection(
        heads_table([(1, 1, "det", "head->dep", 5, 5)]), offsets_table([("det", "head->dep", -1, 5)]), "train"
    )
    rep = selected_replicates(sc, choice, np.array([[1, 1], [0, 2]]))
    det = rep[rep.relation == "det"].set_index("replicate")
    assert det.selected_accuracy.tolist() == [0.5, 1.0]
    # offset -1 head->dep: from the noun, its determiner is the word before it: right in both documents
    assert det.selected_baseline_accuracy.tolist() == [1.0, 1.0]


def test_a_relation_the_selection_lacks_is_nan_and_counted():
    sc = two_docs()
    choice = selection(
        heads_table([(1, 1, "det", "dep->head", 1, 1)]), offsets_table([("det", "dep->head", 1, 1)]), "t"
    )
    main, _ = table1(sc, None, min_count=1)
    out = with_selected(main, selected_table(sc, choice))
    assert out[main.columns].equals(main)  # the in-sample columns and rows unchanged
    nsubj = out[out.relation == "nsubj"]
    assert len(nsubj) == 2 and nsubj.selected_accuracy.isna().all() and nsubj.selected_baseline_accuracy.isna().all()
    assert (nsubj.selected_head == "").all() and (nsubj.selected_direction == "").all()
    det = out[out.relation == "det"]
    # 1-1 dep->head right in docA only: 1 of 2, per relation: the same on both direction rows
    assert det.selected_accuracy.tolist() == [0.5, 0.5]
    counts = selection_counts(sc, choice, "t")
    assert counts["relations_missing"] == [ALL, ALL_NO_ROOT, "dobj", "nsubj"]  # All rows first, then by name
    assert (counts["n_missing"], counts["relations_scored"], counts["relations_selected"]) == (4, 5, 1)
    rep = selected_replicates(sc, choice, np.array([[1, 1]]))
    assert rep[rep.relation == "nsubj"].selected_accuracy.isna().all()


def test_replicate_table_gets_the_selected_columns_per_relation():
    sc = two_docs()
    choice = selection(
        heads_table([(1, 2, "det", "dep->head", 1, 1)]), offsets_table([("det", "dep->head", 1, 1)]), "t"
    )
    weights = np.array([[2, 0], [0, 3]])
    boot = table1_replicates(sc, ["det", "nsubj"], weights)
    out = with_selected(boot, selected_replicates(sc, choice, weights), on=("replicate", "relation"))
    assert len(out) == len(boot) and out[boot.columns].equals(boot)
    det = out[out.relation == "det"]
    assert det.selected_accuracy.tolist() == [0.0, 0.0, 1.0, 1.0]  # both direction rows of each replicate
    assert out[out.relation == "nsubj"].selected_accuracy.isna().all()


def test_a_choice_that_does_not_fit_the_scored_model_is_refused():
    sc = two_docs()
    wide = selection(heads_table([(1, 3, "det", "dep->head", 1, 1)]), offsets_table([("det", "dep->head", 1, 1)]), "t")
    with pytest.raises(ValueError, match="sel.csv: heads \\['1-3'\\] outside .* 1 layers x 2 heads"):
        check_choice(wide, sc, "sel.csv")
    far = selection(heads_table([(1, 1, "det", "dep->head", 1, 1)]), offsets_table([("det", "dep->head", 3, 1)]), "t")
    with pytest.raises(ValueError, match="offsets \\[3\\] not among"):
        check_choice(far, sc, "sel.csv")


def test_table1_figure_marks_the_selected_head_where_it_scored():
    from analysis.clark.syntax.plots import plot_dep_heads
    from analysis.shared.plots import close

    sc = two_docs()
    choice = selection(
        heads_table([(1, 1, "det", "dep->head", 1, 1)]), offsets_table([("det", "dep->head", 1, 1)]), "gum_train"
    )
    main, _ = table1(sc, None, min_count=1)
    fig = plot_dep_heads(with_selected(main, selected_table(sc, choice)), "m", "c")
    ax = fig.axes[0]
    marker = [c for c in ax.collections if c.get_label() == "head chosen on gum_train, scored here"]
    rels = [t.get_text().split(" (n=")[0] for t in ax.get_yticklabels()]
    # one marker (det only has a choice), at its scored accuracy 0.5, on det's dep->head bar (y - 0.27)
    assert len(marker) == 1 and marker[0].get_offsets().tolist() == [[0.5, rels.index("det") - 0.27]]
    close(fig)
    # without a choice: no marker
    fig = plot_dep_heads(main, "m", "c")
    assert not [c for c in fig.axes[0].collections if "chosen" in str(c.get_label())]
    close(fig)


def test_saved_tallies_give_the_scorers_replicates(tmp_path):
    """The per-sentence tallies written beside a run (for the calibration on its own documents) read
    back into the same replicate tables as the scorer itself, in-sample, held-out and selected."""
    from analysis.clark.syntax.heldout import sentence_clusters, two_folds
    from analysis.clark.syntax.units import SentenceTallies, save_tallies

    sc = two_docs()
    clusters, _ = sentence_clusters(sc)
    save_tallies(sc, clusters, tmp_path / "u.npz")
    back = SentenceTallies(tmp_path / "u.npz")
    assert back.clusters == list(clusters) and back.shape == sc.shape and back.offsets == list(sc.offsets)
    choice = selection(FULL, OFFSETS, "t")
    weights = np.array([[1, 1], [2, 0], [0, 3]])
    folds = two_folds(clusters, 0)

    def replicates(tallies):
        boot = table1_replicates(tallies, ["det", "nsubj"], weights, folds)
        return with_selected(boot, selected_replicates(tallies, choice, weights), on=("replicate", "relation"))

    pd.testing.assert_frame_equal(replicates(back), replicates(sc))
