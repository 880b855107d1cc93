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
    g = np.asarray(gold, float) - np.mean(gold)
    den = np.sqrt((p * p).sum(-1) * (g * g).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (p * g).sum(-1) / den, 0.0)  # 0 for a constant prediction, as metrics.pearson


def _spearman(pred, gold):
    return _pearson(rankdata(pred, axis=-1), rankdata(gold))  # average ranks for ties, as metrics.spearman


# vectorised over leading axes (draws, heads); the same values as analysis.core.glue.metrics (tested)
BATCHED = {"accuracy": _accuracy, "f1": _f1, "mcc": _mcc, "pearson": _pearson, "spearman": _spearman}


def max_gain_null(base_pred, head_preds, gold, metric: str, n_perm: int, seed: int, chunk: int = 100) -> np.ndarray:
    """The best score change over heads in each of ``n_perm`` draws that swap the unmodified and
    the disabled prediction on a seeded random half of the examples (the same for every head).

    ``base_pred`` (n,), ``head_preds`` (heads, n), ``gold`` (n,). Returns (n_perm,)."""
    score = BATCHED[metric]
    base_pred, head_preds, gold = np.asarray(base_pred), np.asarray(head_preds), np.asarray(gold)
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, n_perm, chunk):
        swap = rng.random((min(chunk, n_perm - start), 1, len(gold))) < 0.5  # (draws, 1, n)
        var = np.where(swap, base_pred, head_preds)  # (draws, heads, n)
        base = np.where(swap, head_preds, base_pred)
        out.append((score(var, gold) - score(base, gold)).max(-1))
    return np.concatenate(out)


def max_gain_table(task: str, base_logits, head_logits, heads: list[tuple[int, int]], gold, n_perm: int, seed: int):
    """One row per metric of ``task``: the best single disabled head (layer, head 1-indexed), its
    change, and the permutation p-value of that best change (``max_gain_null``)."""
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
                "n_permutations": n_perm,
                "n_examples": len(gold),
            }
        )
    return pd.DataFrame(rows)
