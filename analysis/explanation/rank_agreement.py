"""Rank agreement of Jain & Wallace 2019 (rule ``rank_agreement``): Kendall tau between the
attention weights and gradient / leave-one-out importance."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

log = logging.getLogger(__name__)


def kendall_tau(x, y) -> float:
    """Kendall's tau-b (NaN when either side is constant or n < 2)."""
    from scipy.stats import kendalltau

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(kendalltau(x, y).statistic)


def rank_agreement_rows(instances, explainer) -> list[dict]:
    rows = []
    for inst in instances:
        a = inst.a.numpy()
        grad = explainer.input_gradient_importance(inst).numpy()
        loo = explainer.leave_one_out(inst).numpy()
        rows.append(
            {
                "id": inst.id,
                "label": inst.label,
                "prediction": inst.pred,
                "n_items": inst.n,
                "tau_gradient": kendall_tau(a, grad),
                "tau_leave_one_out": kendall_tau(a, loo),
            }
        )
    return rows


def run_rank_agreement(classifiers) -> pd.DataFrame:
    """Rule ``rank_agreement``: one row per instance of every ``(encoder, explainer, instances)``
    of ``classifiers`` (:func:`analysis.explanation.setup.classifiers_under_test`)."""
    rows = []
    for enc, ex, inst in classifiers:
        res = rank_agreement_rows(inst, ex)
        rows += [{"encoder": enc, **r} for r in res]
        nan = sum(pd.isna(r["tau_gradient"]) or pd.isna(r["tau_leave_one_out"]) for r in res)
        log.info("%s: %d instances, %d with an undefined tau (n < 2 or constant importance)", enc, len(res), nan)
    return pd.DataFrame(rows)
