"""Tables of the fine-tuning rules built from their per-task outputs (torch-free).

``score_intervals`` / ``scores_table``: dev scores of every fine-tuned task and their intervals (rule
finetune_scores);
``disable_heads_table`` / ``disable_heads_cost`` / ``main_metric_rows`` / ``disable_heads_summary``:
the per-task disabled-head scores and their cost gathered for Kovaleva Fig. 6 (rule disable_heads).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.core.glue import metrics
from analysis.core.glue.tasks import get_task
from analysis.shared import bootstrap


def learnt_metric(task: str) -> str:
    """The metric of the learnt test (did fine-tuning beat the majority class?): the task's main
    metric, except F1 (MRPC, QQP), which the all-positive classifier nearly maximises on a
    positive-heavy dev set: accuracy there. CoLA keeps MCC, STS-B its correlation."""
    main = get_task(task).main_metric
    return "accuracy" if main == "f1" else main


def score_intervals(task: str, pred, baseline_pred, gold, resamples: int, seed: int) -> dict[str, dict]:
    """Per metric of ``task`` (and its ``learnt_metric``): the 95% bootstrap interval over dev rows
    of the fine-tuned score (``score``) and of its gain over the baseline's predictions on the same
    rows (``gain``)."""
    return {
        m: {
            "score": list(bootstrap.score_interval(metrics.METRICS[m], pred, gold, resamples, seed)),
            "gain": list(bootstrap.gain_interval(metrics.METRICS[m], pred, baseline_pred, gold, resamples, seed)),
        }
        for m in dict.fromkeys([*get_task(task).metrics, learnt_metric(task)])
    }


def scores_table(infos: list[dict], intervals: list[dict] | None = None) -> pd.DataFrame:
    """One row per (task, metric) of the ``dev_metrics.json`` of rule finetune: fine-tuned,
    pre-trained with an untrained head, and majority-class scores, with the data counts.

    With ``intervals`` (per task, ``score_intervals`` of its dev predictions): the 95%
    intervals of the fine-tuned score and of its gain over the majority class, ``main`` (the
    task's main metric) and ``learnt``: on the task's ``learnt_metric`` (the main metric,
    accuracy where it is F1), the gain's interval lies above 0 (for every row of the task:
    the premise of the claims read on its fine-tuned model's behaviour); that interval is repeated
    as ``learnt_gain_ci95_low`` / ``_high``."""
    rows = []
    for k, info in enumerate(infos):
        task = get_task(info["task"])
        ci = intervals[k] if intervals is not None else None
        for metric in info["metrics"]:
            extra = {}
            if ci is not None:
                extra = {
                    "finetuned_ci95_low": ci[metric]["score"][0],
                    "finetuned_ci95_high": ci[metric]["score"][1],
                    "gain_ci95_low": ci[metric]["gain"][0],
                    "gain_ci95_high": ci[metric]["gain"][1],
                    "main": metric == task.main_metric,
                    "learnt": ci[learnt_metric(task.name)]["gain"][0] > 0,
                    "learnt_metric": learnt_metric(task.name),
                    "learnt_gain_ci95_low": ci[learnt_metric(task.name)]["gain"][0],
                    "learnt_gain_ci95_high": ci[learnt_metric(task.name)]["gain"][1],
                }
            rows.append(
                {
                    "task": info["task"],
                    "metric": metric,
                    "finetuned": info["finetuned"][metric],
                    **extra,
                    "pretrained_random_head": info["pretrained"][metric],
                    "majority": info["majority"][metric],
                    "train_examples": info["train"]["examples"],
                    "train_rows_total": info["train_rows_total"],
                    "train_truncated": info["train"]["truncated"],
                    "dev_examples": info["dev"]["examples"],
                    "dev_rows_total": info["dev_rows_total"],
                    "dev_truncated": info["dev"]["truncated"],
                    "epochs": info["settings"]["epochs"],
                    "steps": info["steps"],
                    "train_seconds": info["train_seconds"],
                }
            )
    return pd.DataFrame(rows)


def disable_heads_table(scores: list[pd.DataFrame]) -> pd.DataFrame:
    """The per-task score tables of rule disable_heads_scores, one below the other."""
    table = pd.concat(scores, ignore_index=True)
    table["head"] = table["head"].astype("Int64")
    return table


def disable_heads_cost(costs: list[dict]) -> pd.DataFrame:
    """The per-task cost records of rule disable_heads_scores, with the time per example and
    the share of layer passes the cache saved."""
    cost = pd.DataFrame(costs)
    cost["seconds_per_example"] = cost.seconds / cost.examples
    cost["layer_pass_saving"] = 1 - cost.layer_passes / cost.layer_passes_without_cache
    return cost


def main_metric_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of each task's main metric (``analysis.core.glue.tasks.Task.main_metric``)."""
    return table[table.metric == table.task.map(lambda t: get_task(t).main_metric)]


def disable_heads_summary(t: pd.DataFrame) -> str:
    """One line on one task's main-metric rows: unmodified score, best head, how many heads
    improve or hurt the score, and the change of every whole layer."""
    heads, layers = t[t.scope == "head"], t[t.scope == "layer"]
    best = heads.loc[heads.change.idxmax()]
    return (
        f"{t.task.iloc[0]}: unmodified {t.metric.iloc[0]} {t.unmodified.iloc[0]:.4f}; "
        f"best head L{int(best.layer)}-H{int(best['head'])} {best.change:+.4f}; "
        f"{(heads.change > 0).sum()} heads improve, {(heads.change < 0).sum()} hurt; "
        f"layers {np.round(layers.change.to_numpy(), 4).tolist()}"
    )
