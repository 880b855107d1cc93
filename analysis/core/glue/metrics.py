"""Dev-set metrics of the GLUE tasks (``analysis.core.glue.tasks.TASKS`` names each task's metrics):
accuracy, F1, Matthews correlation, Pearson and Spearman correlation; ``predictions`` turns
model outputs into labels or scores and ``evaluate`` scores them with every metric of a task."""

from __future__ import annotations

import numpy as np

from analysis.core.glue.tasks import get_task


def accuracy(pred, gold) -> float:
    return float(np.mean(np.asarray(pred) == np.asarray(gold)))


def f1(pred, gold, positive: int = 1) -> float:
    pred, gold = np.asarray(pred), np.asarray(gold)
    tp = np.sum((pred == positive) & (gold == positive))
    fp = np.sum((pred == positive) & (gold != positive))
    fn = np.sum((pred != positive) & (gold == positive))
    return float(2 * tp / (2 * tp + fp + fn)) if tp else 0.0


def mcc(pred, gold) -> float:
    """Matthews correlation (binary); 0 when a marginal is empty."""
    pred, gold = np.asarray(pred), np.asarray(gold)
    tp = float(np.sum((pred == 1) & (gold == 1)))
    tn = float(np.sum((pred == 0) & (gold == 0)))
    fp = float(np.sum((pred == 1) & (gold == 0)))
    fn = float(np.sum((pred == 0) & (gold == 1)))
    den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return float((tp * tn - fp * fn) / den) if den else 0.0


def pearson(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.std() == 0 or y.std() == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1])


def _ranks(x) -> np.ndarray:
    """Average ranks (ties share their mean rank)."""
    x = np.asarray(x, float)
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(len(x), dtype=float)
    _, inv, counts = np.unique(x, return_inverse=True, return_counts=True)
    sums = np.bincount(inv, weights=ranks)
    return sums[inv] / counts[inv]


def spearman(x, y) -> float:
    return pearson(_ranks(x), _ranks(y))


METRICS = {"accuracy": accuracy, "f1": f1, "mcc": mcc, "pearson": pearson, "spearman": spearman}


def predictions(task: str, logits) -> np.ndarray:
    """Class index (classification) or the score itself (regression) from model outputs."""
    logits = np.asarray(logits, dtype=np.float64)
    if get_task(task).is_regression:
        return logits.reshape(len(logits), -1)[:, 0]
    return logits.argmax(-1)


def evaluate(task: str, pred, gold) -> dict[str, float]:
    """Every metric of ``task`` (see ``analysis.core.glue.tasks.TASKS``); ``pred`` from ``predictions``."""
    return {m: METRICS[m](pred, gold) for m in get_task(task).metrics}
