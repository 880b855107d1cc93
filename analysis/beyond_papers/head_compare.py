"""Gradient head importance against the disabled-head scores of Kovaleva et al. (rule
``disable_heads_scores``), and summaries of the pruning curves."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.core.glue.metrics import spearman
from analysis.core.glue.tasks import get_task


def with_disabled(importance: pd.DataFrame, disabled: pd.DataFrame) -> pd.DataFrame:
    """Per (task, layer, head): the gradient importance beside the main-metric change and
    the share of changed predictions when that head alone is disabled (made uniform)."""
    main = disabled[(disabled.scope == "head") & (disabled.metric == disabled.task.map(_main_metric))]
    main = main[["task", "layer", "head", "metric", "change", "changed", "n_examples"]].rename(
        columns={"n_examples": "n_examples_disabled", "metric": "disabled_metric"}
    )
    merged = importance.merge(main.astype({"head": "int64"}), on=["task", "layer", "head"], how="left")
    missing = merged[merged.change.isna()]
    if len(missing):
        raise ValueError(
            f"no disabled-head score for {len(missing)} heads, e.g. {missing.iloc[0][['task', 'layer', 'head']].to_dict()}"
        )
    return merged


def _main_metric(task: str) -> str:
    return get_task(task).main_metric


def spearman_by_task(merged: pd.DataFrame) -> pd.DataFrame:
    """Per task: Spearman of importance with the score drop when the head is disabled
    (-change: positive = the head helps) and with the share of predictions it changes (NaN
    when no head changes it)."""
    rows = []
    for task, g in merged.groupby("task", sort=False):
        rows.append(
            {
                "task": task,
                "heads": len(g),
                "spearman_vs_score_drop": _rho(g.importance, -g.change),
                "spearman_vs_changed_predictions": _rho(g.importance, g.changed),
                "heads_with_score_change": int((g.change != 0).sum()),
                "disabled_metric": g.disabled_metric.iloc[0],
                "n_examples_importance": int(g.n_examples.iloc[0]),
                "n_examples_disabled": int(g.n_examples_disabled.iloc[0]),
            }
        )
    return pd.DataFrame(rows)


def _rho(x, y) -> float:
    """Spearman correlation; NaN (not 0) when either side is constant, e.g. no head changes the score."""
    return np.nan if np.ptp(np.asarray(x, float)) == 0 or np.ptp(np.asarray(y, float)) == 0 else spearman(x, y)


def pruning_summary(curves: pd.DataFrame, keep: float = 0.9) -> pd.DataFrame:
    """Per (task, order): the main-metric score unpruned, the largest fraction of heads pruned
    (in the curve's steps) with every score up to it at least ``keep`` x the unpruned score,
    and the mean score over the curve (random orders: mean over the draws)."""
    main = curves[curves.main_metric]
    rows = []
    for (task, order), g in main.groupby(["task", "order"], sort=False):
        mean_curve = g.groupby("fraction").score.mean().sort_index()
        full = mean_curve.iloc[0]
        ok = (mean_curve >= keep * full).to_numpy() if full > 0 else np.zeros(len(mean_curve), bool)
        first_bad = int(np.argmin(ok)) if not ok.all() else len(ok)
        rows.append(
            {
                "task": task,
                "order": order,
                "metric": g.metric.iloc[0],
                "draws": int(g.draw.nunique()),
                "unpruned": full,
                f"max_fraction_within_{int(keep * 100)}pct": float(mean_curve.index[first_bad - 1])
                if first_bad
                else np.nan,
                "mean_score_over_curve": float(mean_curve.mean()),
            }
        )
    return pd.DataFrame(rows)
