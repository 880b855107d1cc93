"""Does disabling some head really improve the score, or is the best of many heads noise?

Kovaleva et al. (Fig. 6) read gains off the best disabled heads. Picking the largest of
L x H changes on a few hundred dev rows finds a gain even when no head matters. The test here is
a paired permutation null of that maximum: under the null, the unmodified model's and a disabled
model's prediction on each dev example are exchangeable, so each draw swaps the two on a random
half of the examples, the same examples for every head (keeping the heads' dependence), and
recomputes every head's score change with the task's metric. The p-value of the observed best
gain is the share of draws whose best gain (over every head) reaches it: a one-sided test that
already pays for choosing the best head. Every metric of a task is tested; ``main`` marks the
task's main metric, the one the scorecard reads.

Failing to reach p < 0.05 is not evidence that no head helps: with a few hundred dev rows the
null's best gain can already exceed the paper's +1-3 points. Two more columns say how much the
data can tell: ``min_detectable``, the null's 95th percentile of the best gain (about the gain a
head needs for p < 0.05 at this n), and ``gain_upper``, a one-sided 95% upper bound of the best
single head's gain: the 95th percentile, over seeded bootstrap resamples of the dev rows, of the
best change over every head, the best head chosen again on each resample (paired: the unmodified
and the disabled model scored on the same resampled rows). ``paper_effect`` is the paper's
smallest reported gain (+1 point = 0.01 in the main metric): a best gain whose upper bound is below
it is evidence that no head helps as much as the paper found.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from analysis.core.glue import metrics
from analysis.core.glue.tasks import get_task


def _accuracy(pred, gold):
    return (pred == gold).mean(-1)


def _f1(pred, gold):
    tp = ((pred == 1) & (gold == 1)).sum(-1)
    fp = ((pred == 1) & (gold != 1)).sum(-1)
    fn = ((pred != 1) & (gold == 1)).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tp > 0, 2 * tp / (2 * tp + fp + fn), 0.0)


def _mcc(pred, gold):
    tp = ((pred == 1) & (gold == 1)).sum(-1).astype(float)
    tn = ((pred != 1) & (gold != 1)).sum(-1).astype(float)
    fp = ((pred == 1) & (gold != 1)).sum(-1).astype(float)
    fn = ((pred != 1) & (gold == 1)).sum(-1).astype(float)
    den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (tp * tn - fp * fn) / den, 0.0)


def _pearson(pred, gold):
    p = pred - pred.mean(-1, keepdims=True)
    gold = np.asarray(gold, float)
    g = gold - gold.mean(-1, keepdims=True)  # gold may have leading axes (resampled rows) too
    den = np.sqrt((p * p).sum(-1) * (g * g).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (p * g).sum(-1) / den, 0.0)  # 0 for a constant prediction, as metrics.pearson


def _spearman(pred, gold):
    # average ranks for ties, as metrics.spearman
    return _pearson(rankdata(pred, axis=-1), rankdata(gold, axis=-1))


# vectorised over leading axes (draws, heads); the same values as analysis.core.glue.metrics (tested)
BATCHED = {"accuracy": _accuracy, "f1": _f1, "mcc": _mcc, "pearson": _pearson, "spearman": _spearman}


def swap_changes(base_pred, head_preds, gold, metric: str, n_perm: int, seed: int, chunk: int = 100) -> np.ndarray:
    """(n_perm, heads): every head's score change in each of ``n_perm`` draws that swap the
    unmodified prediction (``base_pred`` (n,)) and the head's (``head_preds`` (heads, n)) on a
    seeded random half of the examples, the same half for every head."""
    score = BATCHED[metric]
    base_pred, head_preds, gold = np.asarray(base_pred), np.asarray(head_preds), np.asarray(gold)
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, n_perm, chunk):
        swap = rng.random((min(chunk, n_perm - start), 1, len(gold))) < 0.5  # (draws, 1, n)
        var = np.where(swap, base_pred, head_preds)  # (draws, heads, n)
        base = np.where(swap, head_preds, base_pred)
        out.append(score(var, gold) - score(base, gold))
    return np.concatenate(out)


def max_gain_null(base_pred, head_preds, gold, metric: str, n_perm: int, seed: int, chunk: int = 100) -> np.ndarray:
    """The best score change over heads in each of ``n_perm`` draws of :func:`swap_changes`.

    ``base_pred`` (n,), ``head_preds`` (heads, n), ``gold`` (n,). Returns (n_perm,)."""
    return swap_changes(base_pred, head_preds, gold, metric, n_perm, seed, chunk).max(-1)


LEVEL = 0.95  # one-sided: the upper bound of the best gain and the null's quantile
PAPER_EFFECT = 0.01  # Kovaleva et al. Fig. 6: disabling a head gains +1-3 points; the smallest, as a fraction


def best_gain_upper(base_pred, head_preds, gold, metric: str, idx, level: float = LEVEL, chunk: int = 20) -> float:
    """One-sided ``level`` upper bound of the best head's score change: on each resample (a row of
    ``idx``, dev row indices drawn with replacement) every head's change from ``base_pred`` (n,)
    to its ``head_preds`` (heads, n) on those rows, the best over heads (re-chosen per resample);
    the ``level`` quantile of those bests."""
    base_pred, head_preds, gold, idx = map(np.asarray, (base_pred, head_preds, gold, idx))
    score, best = BATCHED[metric], []
    for start in range(0, len(idx), chunk):
        rows = idx[start : start + chunk]  # (draws, n)
        g = gold[rows][:, None, :]  # (draws, 1, n)
        var = head_preds[:, rows].transpose(1, 0, 2)  # (draws, heads, n)
        best.append((score(var, g) - score(base_pred[rows][:, None, :], g)).max(-1))
    return float(np.quantile(np.concatenate(best), level))


def max_gain_table(
    task: str,
    base_logits,
    head_logits,
    heads: list[tuple[int, int]],
    gold,
    n_perm: int,
    seed: int,
    idx=None,
):
    """One row per metric of ``task``: the best single disabled head (layer, head 1-indexed), its
    change, the permutation p-value of that best change (``max_gain_null``), the null's 95th
    percentile of the best change (``min_detectable``) and the paper's effect (``paper_effect``);
    with ``idx`` (bootstrap resamples of the dev rows, (B, n) indices) also ``gain_upper``
    (``best_gain_upper``)."""
    t = get_task(task)
    base_pred = metrics.predictions(task, base_logits)
    preds = np.stack([metrics.predictions(task, lg) for lg in head_logits])
    gold = np.asarray(gold)
    rows = []
    for metric in t.metrics:
        base = metrics.evaluate(task, base_pred, gold)[metric]
        changes = np.array([metrics.evaluate(task, p, gold)[metric] - base for p in preds])
        best = int(np.argmax(changes))
        null = max_gain_null(base_pred, preds, gold, metric, n_perm, seed)
        rows.append(
            {
                "task": task,
                "metric": metric,
                "main": metric == t.main_metric,
                "best_layer": heads[best][0] + 1,
                "best_head": heads[best][1] + 1,
                "best_change": changes[best],
                "heads": len(heads),
                "p_max": (1 + np.sum(null >= changes[best] - 1e-12)) / (n_perm + 1),
                "null_max_median": float(np.median(null)),
                "min_detectable": float(np.quantile(null, LEVEL)),
                **({} if idx is None else {"gain_upper": best_gain_upper(base_pred, preds, gold, metric, idx)}),
                "paper_effect": PAPER_EFFECT,
                "n_permutations": n_perm,
                **({} if idx is None else {"n_resamples": len(idx)}),
                "n_examples": len(gold),
            }
        )
    return pd.DataFrame(rows)
