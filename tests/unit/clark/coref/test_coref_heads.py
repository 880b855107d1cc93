"""Antecedent selection per head and the baselines (analysis/clark/coref/heads.py), the 2-fold best head
(analysis/shared/head_selection.py), on hand-made cases."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from analysis.clark.coref.heads import (
    Case,
    head_correct,
    population_label,
    read_paper_numbers,
    score,
    window_cases,
)
from analysis.clark.coref.plots import plot_coref_heads
from analysis.core.corpora import prepare
from analysis.core.word_level import word_maps
from analysis.shared.head_selection import fold_of, two_fold
from analysis.shared.plots import close
from conftest import FIXTURES, ROOT


def M(start, end, cluster, **given):
    """A mention as the readers give it: nominal, third person, named m<start>, headed by its last
    word and that word's text, unless ``given`` says otherwise."""
    text = given.get("text") or f"m{start}"
    mention = {
        "start": start,
        "end": end,
        "head": end,
        "cluster": cluster,
        "type": "nominal",
        "text": text,
        "head_word": text.split()[-1],
        "number": None,
        "gender": None,
        "person": 3,
        "scored": False,
    }
    assert set(given) <= set(mention), f"not a mention's key: {set(given) - set(mention)}"
    return mention | given


def picks(cases, systems=("nearest", "same_head", "rule_based")):
    return [{k: int(c.baseline_correct[k]) for k in systems} for c in cases]


def test_baselines_on_fixture_document(tokenizer):
    # one window holding the whole OntoGUM fixture (Anna met her old friend in Paris. She liked the city. ...)
    recs, _ = prepare("ontogum", FIXTURES / "coref" / "ontogum", tokenizer, split="dev", max_len=64)
    assert len(recs) == 1
    cases = window_cases(recs[0]["meta"]["mentions"])
    assert [(c.head, c.type) for c in cases] == [(2, "pronoun"), (8, "pronoun"), (11, "nominal"), (13, "proper")]
    # her <- Anna: nearest and sieve (agreement) right; no earlier "her": same head word wrong (no fallback).
    # She: nearest is Paris (also agrees: sg, gender unknown) -> all wrong.
    # the city: nearest is She, no same head, no exact match; She agrees (gender unknown) -> all wrong.
    # Anna(13): nearest is "the city"; same head word / exact string: Anna(0) -> right.
    assert picks(cases) == [
        {"nearest": 1, "same_head": 0, "rule_based": 1},
        {"nearest": 0, "same_head": 0, "rule_based": 0},
        {"nearest": 0, "same_head": 0, "rule_based": 0},
        {"nearest": 0, "same_head": 1, "rule_based": 1},
    ]
    she = cases[1]
    assert she.cand_heads.tolist() == [0, 2, 4, 6] and she.gold.tolist() == [True, True, False, False]


def test_conll2012_baselines(tokenizer):
    recs, _ = prepare("conll2012", FIXTURES / "coref", tokenizer, pattern="*_conll", max_len=64)
    cases = window_cases(recs[0]["meta"]["mentions"])  # John saw his sister. She waved at the tall man.
    assert [c.head for c in cases] == [2, 5, 10]
    # his -> John; She -> nearest "his sister" (sg, female word list). The tall man: no earlier "man"
    # (same head word: wrong, no fallback); the sieve's agreement step skips She and "his sister"
    # (female) and picks "his" (sg, male) -> right, where the nearest mention (She) is wrong
    assert picks(cases) == [
        {"nearest": 1, "same_head": 0, "rule_based": 1},
        {"nearest": 1, "same_head": 0, "rule_based": 1},
        {"nearest": 0, "same_head": 0, "rule_based": 1},
    ]
    cases = window_cases(recs[1]["meta"]["mentions"])  # herself <- The president ..., Mary Smith (contains-rule)
    assert [c.head for c in cases] == [10] and cases[0].cand_heads.tolist() == [1, 4, 7]
    assert cases[0].gold.tolist() == [True, False, True]


def test_rule_based_sieve_agreement_and_string_match():
    ms = [
        M(0, 1, "w", text="the woman", head_word="woman", number="sg", gender="f"),
        M(3, 4, "d", text="the dogs", head_word="dogs", number="pl"),
        M(6, 7, "m", text="the man", head_word="man", number="sg", gender="m"),
        M(9, 9, "w", type="pronoun", text="she", number="sg", gender="f", scored=True),  # -> the woman
        M(11, 11, "d", type="pronoun", text="they", number="pl", scored=True),  # -> the dogs (man is sg)
        M(13, 14, "m", text="the man", head_word="man", scored=True),  # exact string match
        M(16, 18, "w", text="the old woman", head_word="woman", scored=True),  # head match (not exact)
    ]
    cases = window_cases(ms)
    assert picks(cases) == [
        {"nearest": 0, "same_head": 0, "rule_based": 1},
        {"nearest": 0, "same_head": 0, "rule_based": 1},
        {"nearest": 0, "same_head": 1, "rule_based": 1},
        {"nearest": 0, "same_head": 1, "rule_based": 1},
    ]
    # first/second person pronouns only agree with the same person
    cases = window_cases(
        [
            M(0, 0, "a", text="John", number="sg"),
            M(2, 2, "i", type="pronoun", text="I", person=1),
            M(4, 4, "b", text="Mary", number="sg"),
            M(6, 6, "i", type="pronoun", text="me", number="sg", person=1, scored=True),
        ]
    )
    assert picks(cases) == [{"nearest": 0, "same_head": 0, "rule_based": 1}]


def test_same_head_baseline_has_no_fallback():
    """The paper's baseline: no earlier mention with the mention's head word = wrong. The old
    definition (switch same_head_fallback) fell back to the nearest mention, here right."""
    ms = [
        M(0, 0, "a", text="Kim"),
        M(2, 3, "b", text="the dog"),
        M(5, 6, "b", text="the animal", scored=True),  # nearest: the dog (right); no earlier "animal"
    ]
    (case,) = window_cases(ms)
    assert case.baseline_correct["same_head"] is False
    assert case.baseline_correct["same_head_else_nearest"] is True and case.baseline_correct["nearest"] is True


def test_sieve_applies_every_step_to_every_mention():
    """The paper's sieve runs exact string, head word, agreement, nearest in order for EVERY
    mention; the old one sent pronouns straight to agreement and nouns past it to the nearest."""
    counts = {}
    # a pronoun: the exact string match "she" (another woman) wins over the agreeing nearer "the woman"
    ms = [
        M(0, 0, "x", type="pronoun", text="she", number="sg", gender="f"),
        M(2, 3, "y", text="the woman", number="sg", gender="f"),
        M(5, 5, "y", type="pronoun", text="she", number="sg", gender="f", scored=True),
    ]
    assert picks(window_cases(ms, counts)) == [{"nearest": 1, "same_head": 0, "rule_based": 0}]  # old sieve: 1
    # a noun with no string / head match: agreement skips "it" (neuter) for John; old: nearest "it"
    ms = [
        M(0, 0, "a", type="proper", text="John", number="sg"),
        M(2, 2, "b", type="pronoun", text="it", number="sg", gender="n"),
        M(4, 5, "a", text="the man", number="sg", gender="m", scored=True),
    ]
    assert picks(window_cases(ms, counts)) == [{"nearest": 0, "same_head": 0, "rule_based": 1}]  # old sieve: 0
    # head word match takes pronoun candidates too ("it" -> "it"), before agreement
    ms = [
        M(0, 1, "c", text="the box", number="sg"),
        M(3, 3, "c", type="pronoun", text="It", head_word="It", number="sg", gender="n"),
        M(5, 6, "d", text="a cat", number="sg"),
        M(8, 9, "c", type="pronoun", text="it itself", head_word="it", number="sg", gender="n", scored=True),
    ]
    assert picks(window_cases(ms, counts)) == [{"nearest": 0, "same_head": 1, "rule_based": 1}]
    assert {k: v for k, v in counts.items() if k.startswith("sieve")} == {
        "sieve_exact_string": 1,
        "sieve_exact_string_correct": 0,
        "sieve_agreement": 1,
        "sieve_agreement_correct": 1,
        "sieve_head_word": 1,
        "sieve_head_word_correct": 1,
    }


def test_mention_without_distinct_antecedent_head_is_counted():
    counts = {}
    ms = [M(0, 2, "a", head=2), M(1, 3, "a", head=2, scored=True)]  # the antecedent shares the head word
    assert window_cases(ms, counts) == []
    assert counts["skipped_antecedents_share_head"] == 1


def _maps(rows, n):
    """(1, len(rows), n, n) maps: uniform rows except the given attending row per head."""
    a = np.full((1, len(rows), n, n), 1.0 / n, dtype=np.float32)
    for h, (i, row) in enumerate(rows):
        a[0, h, i] = np.asarray(row, dtype=np.float32)
    return a


def test_head_correct_hand_made_maps():
    word_ids = [-1, 0, 1, 2, 3, 4, -1]  # [CLS] w0..w4 [SEP]
    case = Case(head=4, type="pronoun", cand_heads=np.array([0, 2]), gold=np.array([False, True]), baseline_correct={})
    a = _maps(
        [
            (5, [0, 0.05, 0, 0.15, 0, 0.3, 0.5]),  # most on [SEP] and itself (ignored), then w2 -> right
            (5, [0, 0.4, 0.5, 0.1, 0, 0, 0]),  # w1 is no candidate; w0 beats w2 -> wrong
            (5, [1 / 7] * 7),  # tie -> the first candidate (w0) -> wrong
        ],
        7,
    )
    wm, uw = word_maps(a, word_ids)
    assert head_correct(wm, uw, case).tolist() == [[True, False, False]]
    # word pieces: attention TO a word is the sum over its pieces (w2 = two pieces of 0.15)
    word_ids = [-1, 0, 1, 2, 2, 3, 4, -1]
    a = _maps([(6, [0, 0.2, 0, 0.15, 0.15, 0, 0.1, 0.4])], 8)
    wm, uw = word_maps(a, word_ids)
    assert head_correct(wm, uw, case).tolist() == [[True]]


def test_score_and_tables():
    # window 1: mention at w4 (pronoun) with antecedent w2, candidate w0; window 2: w3 (proper) <- w1, cand w0
    ex1 = SimpleNamespace(
        id="d#w000",
        word_ids=[-1, 0, 1, 2, 3, 4, -1],
        meta={"mentions": [M(0, 0, "x"), M(2, 2, "a"), M(4, 4, "a", type="pronoun", scored=True)]},
        attn=_maps([(5, [0, 0.05, 0, 0.15, 0, 0.3, 0.5]), (5, [0, 0.4, 0.5, 0.1, 0, 0, 0])], 7),
    )
    ex2 = SimpleNamespace(
        id="d#w001",
        word_ids=[-1, 0, 1, 2, 3, -1],
        meta={"mentions": [M(0, 0, "x"), M(1, 1, "b"), M(3, 3, "b", type="proper", scored=True)]},
        attn=_maps([(4, [0, 0.1, 0.6, 0, 0.2, 0.1]), (4, [0, 0.6, 0.1, 0, 0.2, 0.1])], 6),
    )
    ex3 = SimpleNamespace(id="d#w002", word_ids=[-1, 0, -1], meta={"mentions": []}, attn=None)  # no cases
    tally, counts = score([ex1, ex2, ex3], 1, 2)
    assert counts["cases"] == 2 and counts["windows"] == 3 and counts["windows_with_cases"] == 2
    assert tally.heads["all"].tolist() == [[2, 0]]
    assert tally.heads["pronoun"].tolist() == [[1, 0]] and tally.heads["proper"].tolist() == [[1, 0]]
    assert tally.n == {"all": 2, "pronoun": 1, "proper": 1, "nominal": 0}
    assert tally.best_head() == (1, 1)
    per_head = tally.per_head_table()
    row = per_head[(per_head.layer == 1) & (per_head["head"] == 2) & (per_head.mention_type == "all")]
    assert row["accuracy"].item() == 0 and row["n"].item() == 2
    paper = read_paper_numbers(ROOT / "config" / "paper_numbers" / "clark_table2.csv")
    summ = tally.summary_table(paper)
    best = summ[(summ.system == "best_head") & (summ.mention_type == "all")]
    assert best["label"].item() == "head 1-1" and best["accuracy"].item() == 1.0
    assert best["paper_accuracy"].item() == pytest.approx(0.65)
    near = summ[(summ.system == "nearest") & (summ.mention_type == "all")]
    assert near["accuracy"].item() == 1.0  # nearest of w4 is w2, of w3 is w1: both antecedents
    assert len(summ) == 20  # best head, best head 2-fold, 3 baselines x 4 mention types
    over = {"documents": 30, "max_len": 128, "windows_mode": "overlapping", "windows": 569, "stride": 64}
    assert population_label(over) == "30 whole documents in 569 overlapping windows (stride 64)"
    population = population_label({"documents": 1, "max_len": 128, "windows_mode": "first"})
    fig = plot_coref_heads(per_head, summ, "m", population)
    assert fig.axes[0].get_title().startswith("per-head accuracy, all mentions") and fig._suptitle.get_text() == (
        "m: coreference (Clark Table 2), 1 document, first 128 word pieces each"
    )
    close(fig)


def test_same_head_fallback_switch_renames_the_system():
    ex = SimpleNamespace(
        id="d#w000",
        word_ids=[-1, 0, 1, 2, -1],
        meta={"mentions": [M(0, 0, "a"), M(2, 2, "a", scored=True)]},  # no same head word: m0 vs m2
        attn=_maps([(3, [0, 0.5, 0, 0, 0.5])], 5),
    )
    paper = read_paper_numbers(ROOT / "config" / "paper_numbers" / "clark_table2.csv")
    summ = score([ex], 1, 1)[0].summary_table(paper).set_index(["system", "mention_type"])
    assert summ.loc[("same_head", "all"), "accuracy"] == 0 and summ.loc[("same_head", "all"), "paper_accuracy"] == 0.52
    summ = score([ex], 1, 1, same_head_fallback=True)[0].summary_table(paper).set_index(["system", "mention_type"])
    row = summ.loc[("same_head_else_nearest", "all")]
    assert row["accuracy"] == 1 and np.isnan(row["paper_accuracy"])  # another baseline: no paper number beside
    assert row["label"] == "nearest same head word, else nearest" and "same_head" not in summ.index.get_level_values(0)


def test_two_fold_best_head():
    folds = [
        {"all": np.array([[3, 1]]), "pronoun": np.array([[2, 1]])},
        {"all": np.array([[0, 2]]), "pronoun": np.array([[0, 1]])},
    ]
    # fold 0 is scored with the head best on fold 1 (1-2), fold 1 with the head best on fold 0 (1-1)
    out, chosen = two_fold(folds, ("all", "pronoun"))
    assert chosen == [(1, 2), (1, 1)] and out == {"all": 1 + 0, "pronoun": 1 + 0}


def test_fold_of_is_deterministic():
    assert [fold_of(k) for k in "abcde"] == [1, 1, 1, 0, 0]  # crc32 % 2: the same on every run


def test_replicate_2fold_head_is_chosen_on_the_other_half_of_the_drawn_documents():
    """d1 (half 0): 2 cases, head 1 right in both, head 2 in one; d2 (half 1): 2 cases, head 2 right
    in both, head 1 in none; d3 (half 1): 1 case, head 1 right."""
    from analysis.clark.coref.heads import Tally

    tally = Tally(1, 2)
    case = SimpleNamespace(type="pronoun", baseline_correct={b: False for b in tally.baselines})
    for c in ([[True, True]], [[True, False]]):
        tally.add(case, np.array(c), 0, "d1")
    for _ in range(2):
        tally.add(case, np.array([[False, True]]), 1, "d2")
    tally.add(case, np.array([[True, False]]), 1, "d3")
    rep = tally.replicate_summary(np.array([[1, 1, 1], [1, 2, 0], [1, 0, 2]]))
    held = rep[(rep.system == "best_head_2fold") & (rep.mention_type == "all")].set_index("replicate")
    # replicate 0: half 1 (d2 + d3) has head 1 1, head 2 2 -> head 2 scores d1: 1; half 0 (d1) has
    # head 1 2, head 2 1 -> head 1 scores d2 + d3: 1; 2 of 5. Replicate 1: d2 twice -> head 2 on d1: 1,
    # head 1 on 2 x d2: 0; 1 of 6. Replicate 2: d3 twice -> head 1 on d1: 2, head 1 on 2 x d3: 2; 4 of 4
    assert held.accuracy.tolist() == pytest.approx([2 / 5, 1 / 6, 1.0]) and held.n.tolist() == [5, 6, 4]
    point = tally.summary_table().set_index(["system", "mention_type"]).loc[("best_head_2fold", "all")]
    assert point.accuracy == pytest.approx(2 / 5)


def test_split_windows_are_refused():
    ex = SimpleNamespace(id="d#w000#1", word_ids=[], meta={"mentions": [], "part": 1}, attn=None)
    with pytest.raises(ValueError, match="split or truncated"):
        score([ex], 1, 1)


def test_replicates_resample_documents_and_choose_the_best_head_again():
    """Two documents: d1's one case is right for head 1 only, d2's two cases for head 2 only."""
    from analysis.clark.coref.heads import Tally

    tally = Tally(1, 2)
    case = SimpleNamespace(type="pronoun", baseline_correct={b: b == "nearest" for b in tally.baselines})
    tally.add(case, np.array([[True, False]]), 0, "d1")
    for _ in range(2):
        tally.add(case, np.array([[False, True]]), 1, "d2")
    assert list(tally.by_unit) == ["d1", "d2"]
    rep = tally.replicate_summary(np.array([[1, 1], [2, 0], [0, 2]]))
    best = rep[(rep.system == "best_head") & (rep.mention_type == "all")].set_index("replicate")
    # both documents: head 2 is best (2 of 3); d1 twice: head 1, 2 of 2; d2 twice: head 2, 4 of 4
    assert best.accuracy.tolist() == pytest.approx([2 / 3, 1.0, 1.0]) and best.n.tolist() == [3, 2, 4]
    nearest = rep[(rep.system == "nearest") & (rep.mention_type == "pronoun")]
    assert nearest.accuracy.tolist() == [1.0, 1.0, 1.0]
    assert rep[rep.mention_type == "proper"].accuracy.isna().all()  # no proper-noun case drawn
    # the 2-fold head (d1 in half 0, d2 in half 1): d1 is scored with d2's best head (2: wrong) and
    # d2 with d1's (1: wrong both times): 0 of 3. A replicate without one half chooses the first head
    # on it, as the point table does: d1 twice is scored with head 1 (2 of 2); d2 twice with head 1 (0 of 4)
    held = rep[(rep.system == "best_head_2fold") & (rep.mention_type == "all")].set_index("replicate")
    assert held.accuracy.tolist() == [0.0, 1.0, 0.0] and held.n.tolist() == [3, 2, 4]
    # every document once: the point summary
    point = tally.summary_table().set_index(["system", "mention_type"])
    once = tally.replicate_summary(np.ones((1, 2), dtype=int)).set_index(["system", "mention_type"])
    for key, row in once.iterrows():
        assert row.accuracy == pytest.approx(point.loc[key, "accuracy"], nan_ok=True), key


def test_saved_units_give_the_same_replicates_and_totals(tmp_path):
    """The per-document counts written beside a run read back into a tally of the same class whose
    replicates and point summary equal the original's."""
    from analysis.clark.coref.heads import Tally

    tally = Tally(1, 2)
    case = SimpleNamespace(type="pronoun", baseline_correct={b: b == "nearest" for b in tally.baselines})
    tally.add(case, np.array([[True, False]]), 0, "d1")
    for _ in range(2):
        tally.add(case, np.array([[False, True]]), 1, "d2")
    tally.save_units(tmp_path / "u.npz")
    back = Tally.from_units(tmp_path / "u.npz")
    assert type(back) is Tally and back.unit_fold == tally.unit_fold
    weights = np.array([[1, 1], [2, 0], [0, 2]])
    pd.testing.assert_frame_equal(back.replicate_summary(weights), tally.replicate_summary(weights))
    assert back.n == tally.n and back.base == tally.base
    assert all((back.heads[g] == tally.heads[g]).all() for g in tally.groups)
