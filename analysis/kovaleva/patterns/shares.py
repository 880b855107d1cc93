"""What the pattern classifier's predictions (``analysis.kovaleva.patterns.classifier``) add up to
(Kovaleva et al. 2019, Fig. 2): the share of each pattern type within groups of maps (``share_table``,
``task_shares``; rule patterns) and the most confidently classified map of each type
(``most_confident``; rule pattern_examples)."""

from __future__ import annotations

import logging
from collections.abc import Iterable

import pandas as pd

from analysis.kovaleva.patterns.features import CLASSES

log = logging.getLogger(__name__)


def proportions(pred_labels: Iterable[str]) -> dict:
    """Share of each class among ``pred_labels`` (every class present, zero if unseen)."""
    s = pd.Series(list(pred_labels))
    n = len(s)
    return {c: (float((s == c).sum()) / n if n else 0.0) for c in CLASSES}


def share_table(pred: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Tidy shares of each class within each group of ``by``: columns by + label, share,
    n_maps (maps in the group)."""
    rows = []
    for key, g in pred.groupby(by, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        props = proportions(g["label"])
        for c in CLASSES:
            rows.append({**dict(zip(by, key)), "label": c, "share": props[c], "n_maps": len(g)})
    return pd.DataFrame(rows)


def task_shares(pred: pd.DataFrame, counts: list[dict], kind: str, spec: str) -> pd.DataFrame:
    """Share of each type per (variant, task) with the input counts of ``classify_shards``."""
    tab = share_table(pred, ["variant", "task"])
    counts = pd.DataFrame(counts)
    counts = counts.fillna({c: 0 for c in counts.columns if c.startswith("shard_")})  # a count absent = none
    tab = tab.merge(counts, on=["variant", "task"], how="left")
    tab.insert(0, "classifier", kind)
    tab.insert(0, "model", spec)
    return tab


def most_confident(pred: pd.DataFrame, min_tokens: int) -> pd.DataFrame:
    """The most confidently classified map of each type (ties broken by the order of ``pred``),
    from inputs of at least ``min_tokens`` word pieces when every predicted type has one."""
    # very short inputs give degenerate maps: prefer inputs with at least min_tokens word pieces
    long_enough = pred[pred["n_tokens"] >= min_tokens]
    if long_enough["label"].nunique() == pred["label"].nunique():
        pred = long_enough
    else:
        log.warning("not every predicted type has a map of >= %d tokens; drawing from all inputs", min_tokens)
    rows = []
    for c in CLASSES:
        cand = pred[pred["label"] == c]
        if len(cand) == 0:
            log.warning("no map classified as %s", c)
            continue
        # the most confident map of the class; ties broken by task, input, layer, head order
        rows.append(cand.sort_values(f"p_{c}", ascending=False, kind="stable").iloc[0])
    return pd.DataFrame(rows)
