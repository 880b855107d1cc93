"""Pattern shares corrected for the classifier's confusion (adjusted classify-and-count, Forman
2008): the share of maps *classified* as each type, q, is what the true shares p give through the
misclassification rates, q = M^T p, M[i, j] = P(classified j | truly i), estimated from the
classifier's cross-validated predictions on the hand-labelled maps (rule pattern_classifier).
p is the point of the simplex (p >= 0, sum 1) nearest to solving it (least squares). Its
replicates resample the task's inputs (the shares q) and, independently, the hand-labelled
maps by their input (M), so that the interval covers the classifier's error too."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import nnls

from analysis.shared.bootstrap import cluster_weights

SUM_WEIGHT = 1e3  # the weight of "the shares sum to 1" against the q = M^T p rows (then renormalised)


def confusion_counts(oof: pd.DataFrame, classes) -> np.ndarray:
    """(maps, classes x classes) one-hot cells of the out-of-fold predictions ``oof`` (columns
    true_label, predicted_label): a weighted sum over maps gives a confusion matrix of counts."""
    unknown = (set(oof["true_label"]) | set(oof["predicted_label"])) - set(classes)
    if unknown:
        raise ValueError(f"labels outside {tuple(classes)}: {sorted(unknown)}")
    k = len(classes)
    true = pd.Categorical(oof["true_label"], categories=classes).codes
    pred = pd.Categorical(oof["predicted_label"], categories=classes).codes
    cells = np.zeros((len(oof), k * k))
    cells[np.arange(len(oof)), true * k + pred] = 1.0
    return cells


def misclassification(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(M, labelled): each row of the (k, k) confusion ``counts`` (true x predicted) as the share of
    its true class, and which classes have hand-labelled maps. A class with none keeps the row
    of a correct classifier (nothing known of its errors): the caller counts such classes."""
    counts = np.asarray(counts, dtype=float)
    totals = counts.sum(1)
    labelled = totals > 0
    m = np.eye(len(counts))
    m[labelled] = counts[labelled] / totals[labelled, None]
    return m, labelled


def adjusted_shares(q: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The true shares p (p >= 0, sum 1) whose classified shares M^T p are nearest ``q`` (least
    squares; Forman's adjusted classify-and-count for several classes)."""
    k = len(q)
    a = np.vstack([m.T, SUM_WEIGHT * np.ones((1, k))])
    b = np.concatenate([np.asarray(q, dtype=float), [SUM_WEIGHT]])
    p, _ = nnls(a, b)
    return p / p.sum()


def _adjusted_wide(frame: pd.DataFrame, keys: list[str], classes, rates_of) -> pd.Series:
    """The adjusted share of every row of ``frame`` (columns ``keys`` + label, share; every class once
    per group of ``keys``), each group through the misclassification rates ``rates_of(group key)``."""
    wide = frame.pivot_table(index=keys, columns="label", values="share", sort=False).reindex(columns=list(classes))
    if wide.isna().any().any() or len(wide) * len(classes) != len(frame):
        raise ValueError(f"shares of {sorted(set(frame['label']))}, expected one row per class of {tuple(classes)}")
    fixed = [adjusted_shares(q, rates_of(key)) for q, key in zip(wide.to_numpy(), wide.index)]
    long = pd.DataFrame(fixed, index=wide.index, columns=list(classes)).stack()
    return pd.Series(long.reindex(pd.MultiIndex.from_frame(frame[[*keys, "label"]])).to_numpy(), index=frame.index)


def adjusted_table(shares: pd.DataFrame, m: np.ndarray, classes, by: list[str]) -> pd.Series:
    """The adjusted share of every row of ``shares`` (columns ``by`` + label, share; every class
    once per group), in the rows' order."""
    return _adjusted_wide(shares, list(by), classes, lambda key: m)


def adjusted_replicates(
    boot: pd.DataFrame, oof: pd.DataFrame, classes, resamples: int, seed: int, by=("variant", "task")
) -> pd.Series:
    """The adjusted share of every row of the replicate table ``boot`` (columns ``by`` + label,
    share, replicate): replicate r's classified shares through the misclassification rates of
    replicate r of the hand-labelled maps (``oof``: true_label, predicted_label, input_id), which
    are resampled by input, seeded apart from the task inputs."""
    cells = confusion_counts(oof, classes)
    weights = cluster_weights(oof["input_id"].tolist(), resamples, seed)  # (resamples, maps)
    k = len(classes)
    rates = [misclassification(c.reshape(k, k))[0] for c in weights @ cells]
    return _adjusted_wide(boot, [*by, "replicate"], classes, lambda key: rates[int(key[-1])])
