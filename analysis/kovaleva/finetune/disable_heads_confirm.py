"""Disabling heads as a two-stage confirmatory design (Kovaleva et al. 2019, Fig. 6: "for every task
some head's removal improves the score").

Picking the best of L x H disabled heads on the rows it is scored on finds a gain even where no
head matters, and the max of *unstudentised* changes is dominated by the heads that change many
predictions (their swapped changes spread widest): the null of that max sits far above any real
head's gain, so its p is near 1 whatever the data (:mod:`analysis.kovaleva.finetune.disable_heads_null`).
Two stages instead:

1. **Ranking** on the ``disable_examples`` dev rows every head is scored on. Each head's change
   is studentised by its spread under the paired swap null (the unmodified and the disabled
   prediction of each row exchanged on a random half of the rows, the same rows for every head):
   ``t = change / sd`` (for accuracy ``sd = sqrt(gained + lost) / n``: McNemar's z). The
   studentised max-test's p (``p_max_t``) is the share of swap draws whose largest ``t`` over the
   heads reaches the observed largest one. The ``confirm_heads`` heads with the largest ``t`` in
   the task's main metric (ties: the larger change, then the lower layer and head) go on to stage
   2; the task's other metrics are confirmed on the same heads (at most ``confirm_heads`` more
   disabled passes, whatever the number of metrics).
2. **Confirmation** on the dev rows *not* drawn for stage 1 (the unused rows of the task's dev
   split): the unmodified model and each carried head are run on them; per head a one-sided
   paired permutation test of "disabling it scores higher" (the same swaps: for accuracy the
   sign-flip test of the per-row differences), Holm over the carried heads (``holm``). The claim
   holds for a task where Holm rejects at least one head at 5% (the smallest adjusted p,
   ``confirm_p_holm``, below 0.05). ``confirm_gain_upper`` is a simultaneous one-sided 95% upper
   bound of the carried heads' gains on those rows (the 95th percentile over bootstrap resamples of
   the largest of their changes): below the paper's smallest effect (+1 point) it says that the
   heads the ranking found do not help as the paper's did, so both verdicts are reachable. It is
   about the carried heads, not every head: the ranking stage is what looks at all of them.

Too few unused rows: below ``min_rows`` (default 100: under it the paper's +1 point is less than
one row) nothing is confirmed: the confirmation columns are NaN, ``confirm_rows`` says how many
rows there were, and a claim reading them is inconclusive; never a silent fallback to the ranking
rows (RTE: 277 dev rows, 200 drawn, 77 left). ``disable_examples: null`` (every dev row ranked)
leaves none.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.kovaleva.finetune.disable_heads_null import BATCHED, LEVEL, best_gain_upper, swap_changes

ALPHA = 0.05  # Holm's family-wise level over the carried heads
MIN_ROWS = 100  # the paper's +1 point (0.01) is one row at 100


def changes_of(base_pred, head_preds, gold, metric: str) -> np.ndarray:
    """(heads,) each head's score change from the unmodified predictions."""
    score, gold = BATCHED[metric], np.asarray(gold)
    return score(np.asarray(head_preds), gold) - score(np.asarray(base_pred), gold)


def permutation_p(observed, null: np.ndarray) -> np.ndarray:
    """One-sided p of each column's ``observed`` value (a gain) against its ``null`` draws (draws, k):
    (1 + draws at least as large) / (draws + 1)."""
    return (1 + (null >= np.asarray(observed) - 1e-12).sum(0)) / (len(null) + 1)


def studentised(changes, null: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(t (heads,), t of every draw (draws, heads), p of the largest t): ``changes`` and the swap
    draws ``null`` (draws, heads) divided by each head's standard deviation over the draws; a head
    whose change is 0 in every draw (no prediction changed) has t = 0."""
    sd = null.std(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(sd > 0, np.asarray(changes) / sd, 0.0)
        t_null = np.where(sd > 0, null / sd, 0.0)
    return t, t_null, float(permutation_p(t.max(), t_null.max(1)[:, None])[0])


def top_heads(t, changes, k: int) -> list[int]:
    """Indices of the ``k`` heads with the largest ``t`` (ties: the larger change, then the lower index)."""
    order = sorted(range(len(t)), key=lambda h: (-t[h], -changes[h], h))
    return order[:k]


def holm(p) -> np.ndarray:
    """Holm's step-down adjusted p-values (same order as ``p``): the i-th smallest is
    max over j <= i of min(1, (m - j + 1) p_(j)). NaN anywhere: every adjusted p NaN."""
    p = np.asarray(p, dtype=float)
    if np.isnan(p).any():
        return np.full(len(p), np.nan)
    order = np.argsort(p, kind="stable")
    m = len(p)
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


def confirm(base_pred, head_preds, gold, metric: str, n_perm: int, seed: int, idx, min_rows: int = MIN_ROWS):
    """Stage 2 on the unused rows: (per carried head: change, one-sided paired permutation p, Holm p;
    the simultaneous one-sided 95% upper bound of their gains over the resamples ``idx`` (B, n)).
    Fewer than ``min_rows`` rows: everything NaN."""
    k, n = len(head_preds), len(gold)
    if n < min_rows:
        nan = np.full(k, np.nan)
        return nan, nan, nan, np.nan
    change = changes_of(base_pred, head_preds, gold, metric)
    p = permutation_p(change, swap_changes(base_pred, head_preds, gold, metric, n_perm, seed))
    upper = best_gain_upper(base_pred, head_preds, gold, metric, idx, level=LEVEL)
    return change, p, holm(p), upper


def rank(base_pred, head_preds, gold, metric: str, n_perm: int, seed: int, k: int) -> dict:
    """Stage 1 on the ranking rows: every head's change and t, the studentised max-test's p and the
    ``k`` heads carried (indices into ``head_preds``)."""
    change = changes_of(base_pred, head_preds, gold, metric)
    t, _, p = studentised(change, swap_changes(base_pred, head_preds, gold, metric, n_perm, seed))
    return {"change": change, "t": t, "p_max_t": p, "carried": top_heads(t, change, k)}


def confirm_rows_table(task, metric, main, heads, ranked, confirmed, n_rows) -> pd.DataFrame:
    """One row per carried head: its rank, layer and head (1-indexed; ``heads`` 0-based (layer,
    head) of each index), its change and t on the ranking rows, and on the unused rows its change,
    p, Holm p and whether Holm confirms it (NaN / NA where the rows were too few)."""
    change, p, p_holm, _ = confirmed
    carried = ranked["carried"]
    return pd.DataFrame(
        {
            "task": task,
            "metric": metric,
            "main": main,
            "rank": np.arange(1, len(carried) + 1),
            "layer": [heads[h][0] + 1 for h in carried],
            "head": [heads[h][1] + 1 for h in carried],
            "rank_change": ranked["change"][carried],
            "rank_t": ranked["t"][carried],
            "confirm_change": change,
            "confirm_p": p,
            "confirm_p_holm": p_holm,
            "confirmed": pd.array([pd.NA if np.isnan(q) else bool(q < ALPHA) for q in p_holm], dtype="boolean"),
            "confirm_rows": n_rows,
        }
    )


def summary(ranked: dict, confirmed, heads, n_rows: int, min_rows: int = MIN_ROWS) -> dict:
    """The max-test table's columns of one task and metric: the studentised stage 1 (the head with
    the largest t, that t, ``p_max_t``) and the confirmation (the carried heads ``"L-H L-H ..."``,
    how many unused rows and the minimum, how many heads Holm confirms, the smallest Holm p, the
    largest change there and ``confirm_gain_upper``; NaN / NA where the rows were too few)."""
    change, _, p_holm, upper = confirmed
    best = int(np.argmax(ranked["t"]))
    enough = n_rows >= min_rows
    return {
        "best_t_layer": heads[best][0] + 1,
        "best_t_head": heads[best][1] + 1,
        "best_t": float(ranked["t"][best]),
        "p_max_t": ranked["p_max_t"],
        "confirm_heads": " ".join(f"{heads[h][0] + 1}-{heads[h][1] + 1}" for h in ranked["carried"]),
        "confirm_rows": int(n_rows),
        "confirm_min_rows": int(min_rows),
        "confirmed_heads": int(np.sum(p_holm < ALPHA)) if enough else pd.NA,
        "confirm_p_holm": float(np.min(p_holm)) if enough else np.nan,
        "confirm_best_change": float(np.max(change)) if enough else np.nan,
        "confirm_gain_upper": float(upper),
    }
