"""Disabling heads in two stages (analysis.kovaleva.finetune.disable_heads_confirm): Holm's step,
the paired permutation test, the studentised max-test and the confirmation on unused rows, on
hand-made predictions with answers counted by hand."""

import math

import numpy as np
import pandas as pd
import pytest

from analysis.kovaleva.finetune.disable_heads_confirm import (
    confirm,
    confirm_rows_table,
    holm,
    permutation_p,
    rank,
    studentised,
    summary,
    top_heads,
)
from analysis.kovaleva.finetune.disable_heads_null import max_gain_null, swap_changes
from analysis.kovaleva.finetune.training import unused_rows


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 -> 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, max(0.06, 1 x 0.04) = 0.06
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(holm([0.5, 0.6, 0.9]), [1.0, 1.0, 1.0])  # capped at 1
    np.testing.assert_allclose(holm([0.02]), [0.02])  # one test: unchanged
    # rejects fewer than all at 5%: 0.01 x 3 = 0.03 < 0.05, but 0.03 x 2 = 0.06
    assert (holm([0.01, 0.03, 0.2]) < 0.05).tolist() == [True, False, False]
    assert np.isnan(holm([0.01, np.nan, 0.2])).all()  # never a family judged on part of it


def step_down(p, alpha: float) -> set[int]:
    """Holm's procedure run at ``alpha``: reject the smallest p while p_(j) <= alpha / (m - j + 1)."""
    rejected = set()
    for j, i in enumerate(np.argsort(p, kind="stable")):
        if p[i] > alpha / (len(p) - j):
            break
        rejected.add(int(i))
    return rejected


def test_holm_adjusted_p_rejects_what_the_step_down_procedure_rejects():
    # the adjusted p is the smallest level at which the procedure rejects the hypothesis
    rng = np.random.default_rng(0)
    for p in rng.random((200, 3)) ** 3:
        adjusted = holm(p)
        for alpha in (0.01, 0.05, 0.1, 0.3):
            assert {i for i in range(3) if adjusted[i] <= alpha} == step_down(p, alpha)


def rows(gained: int, lost: int, same: int):
    """(gold, unmodified, disabled) predictions of a binary task: ``gained`` rows the disabled model
    gets right and the unmodified wrong, ``lost`` the other way, ``same`` rows both get right."""
    n = gained + lost + same
    gold = np.ones(n, dtype=int)
    base = np.r_[np.zeros(gained), np.ones(lost + same)].astype(int)
    head = np.r_[np.ones(gained), np.zeros(lost), np.ones(same)].astype(int)
    return gold, base, head


def binomial_tail(d: int, g: int) -> float:
    """P(Bin(d, 1/2) >= g): the exact one-sided sign-flip p of g gains among d discordant rows."""
    return sum(math.comb(d, i) for i in range(g, d + 1)) / 2**d


@pytest.mark.parametrize(("gained", "lost"), [(6, 0), (3, 1), (5, 5)])
def test_paired_permutation_p_is_the_sign_flip_tail(gained, lost):
    # swapping the two predictions of a row flips the sign of its difference: the change is
    # (2 Y - d) / n with Y ~ Bin(d, 1/2) over the d discordant rows, so p = P(Y >= gained);
    # 6-0: 1/64, 3-1: 5/16, 5-5: 638/1024
    gold, base, head = rows(gained, lost, 40)
    draws = swap_changes(base, head[None], gold, "accuracy", 20000, 0)
    change = (gained - lost) / len(gold)
    p = permutation_p([change], draws)[0]
    assert p == pytest.approx(binomial_tail(gained + lost, gained), abs=0.01)


def test_studentised_t_of_accuracy_is_mcnemar_z():
    # the swap SD of a head's accuracy change is sqrt(gained + lost) / n: t = (g - l) / sqrt(g + l)
    gold, base, head = rows(12, 4, 84)
    draws = swap_changes(base, head[None], gold, "accuracy", 20000, 1)
    t, _, _ = studentised([0.08], draws)
    assert t[0] == pytest.approx(8 / 4, rel=0.02)


def test_studentising_stops_a_noisy_head_from_hiding_a_real_gain():
    # 200 rows, the unmodified model wrong on rows 0-57; head A makes rows 0-49 right and 58-107
    # wrong (100 rows flipped, change 0), head B makes rows 50-57 right and loses none (+0.04)
    gold = np.ones(200, dtype=int)
    base = np.r_[np.zeros(58), np.ones(142)].astype(int)
    a, b = base.copy(), base.copy()
    a[:50], a[58:108] = 1, 0
    b[50:58] = 1
    heads = np.stack([a, b])
    np.testing.assert_allclose(heads.mean(1) - base.mean(), [0.0, 0.04])
    # raw max: A's swapped change has SD 0.05 and reaches +0.04 in ~1/4 of the draws: p far above 0.05
    raw = max_gain_null(base, heads, gold, "accuracy", 4000, 0)
    assert (1 + np.sum(raw >= 0.04 - 1e-12)) / 4001 > 0.15
    # studentised: B's t = 8 / sqrt(8) = 2.83; the draws' largest t reaches it ~0.6% of the time
    # (A: P(Bin(100, 1/2) >= 65) ~ 0.002; B: all 8 rows kept, 1/256)
    ranked = rank(base, heads, gold, "accuracy", 4000, 0, k=1)
    assert ranked["t"][1] == pytest.approx(math.sqrt(8), rel=0.05) and ranked["carried"] == [1]
    assert ranked["p_max_t"] < 0.02


def test_top_heads_break_ties_by_change_then_index():
    assert top_heads([1.0, 2.0, 2.0, 0.5], [0.01, 0.02, 0.03, 0.0], 3) == [2, 1, 0]
    assert top_heads([1.0, 1.0], [0.01, 0.01], 1) == [0]


def test_confirmation_by_hand_on_enough_rows():
    # 120 unused rows, the unmodified model wrong on rows 0-7; head 0 gets every row right (gains 8,
    # loses none: p = 1/256), head 1 gains rows 0-2 and loses row 50 (p = P(Bin(4, 1/2) >= 3) =
    # 5/16), head 2 changes nothing (every draw 0 >= 0: p = 1)
    gold = np.ones(120, dtype=int)
    base = np.r_[np.zeros(8), np.ones(112)].astype(int)
    h1 = base.copy()
    h1[[0, 1, 2]], h1[50] = 1, 0
    heads = np.stack([np.ones(120, dtype=int), h1, base.copy()])
    idx = np.arange(120)[None]  # the identity resample: the bound is the largest change itself
    change, p, p_holm, upper = confirm(base, heads, gold, "accuracy", 20000, 0, idx, min_rows=100)
    np.testing.assert_allclose(change, [8 / 120, 2 / 120, 0.0])
    np.testing.assert_allclose(p, [1 / 256, 5 / 16, 1.0], atol=0.01)
    np.testing.assert_allclose(p_holm, [3 * p[0], 2 * p[1], 1.0])
    assert upper == pytest.approx(8 / 120)
    ranked = {"change": np.array([0.05, 0.04, 0.03]), "t": np.array([3.0, 2.0, 1.0]), "p_max_t": 0.01}
    ranked["carried"] = [0, 1, 2]
    heads_at = [(0, 2), (3, 0), (1, 1)]  # 0-based (layer, head) of each index
    s = summary(ranked, (change, p, p_holm, upper), heads_at, 120)
    assert s["confirm_heads"] == "1-3 4-1 2-2" and s["confirmed_heads"] == 1
    assert s["confirm_p_holm"] == pytest.approx(3 / 256, abs=0.01) and s["confirm_rows"] == 120
    assert (s["best_t_layer"], s["best_t_head"], s["p_max_t"]) == (1, 3, 0.01)
    t = confirm_rows_table("SST-2", "accuracy", True, heads_at, ranked, (change, p, p_holm, upper), 120)
    assert t.confirmed.tolist() == [True, False, False] and t["rank"].tolist() == [1, 2, 3]


def test_too_few_unused_rows_give_nan_and_their_count_never_a_fallback():
    gold, base, head = rows(30, 0, 47)  # 77 rows: RTE's 277 dev rows less the 200 drawn
    heads = np.stack([head, head, base])
    confirmed = confirm(base, heads, gold, "accuracy", 100, 0, None, min_rows=100)
    assert all(np.isnan(x).all() for x in confirmed[:3]) and np.isnan(confirmed[3])
    ranked = {"change": np.array([0.1, 0.1, 0.0]), "t": np.array([5.0, 5.0, 0.0]), "p_max_t": 0.001}
    ranked["carried"] = [0, 1, 2]
    s = summary(ranked, confirmed, [(0, 0), (0, 1), (0, 2)], 77)
    assert s["confirm_rows"] == 77 and s["confirm_min_rows"] == 100
    assert np.isnan(s["confirm_p_holm"]) and np.isnan(s["confirm_gain_upper"]) and s["confirmed_heads"] is pd.NA
    t = confirm_rows_table("RTE", "accuracy", True, [(0, 0), (0, 1), (0, 2)], ranked, confirmed, 77)
    assert t.confirmed.isna().all() and (t.confirm_rows == 77).all()


def test_unused_rows_are_the_complement_of_the_seeded_draw():
    from analysis.core.glue.reader import select_rows

    all_rows = [{"id": i} for i in range(10)]
    drawn, left = select_rows(all_rows, 4, 7), unused_rows(all_rows, 4, 7)
    assert len(left) == 6 and {r["id"] for r in drawn} | {r["id"] for r in left} == set(range(10))
    assert not {r["id"] for r in drawn} & {r["id"] for r in left}
    assert [r["id"] for r in left] == sorted(r["id"] for r in left)  # file order
    assert unused_rows(all_rows, None, 7) == [] and unused_rows(all_rows, 10, 7) == []
