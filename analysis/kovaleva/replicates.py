"""Replicate tables of the Kovaleva claims (``<stem>.boot.csv``; see :mod:`analysis.shared.bootstrap`).

The unit is the dev example (input) of a task: every table of the Kovaleva rules is a mean or a
share over examples, so each resample redraws a task's examples with replacement (seeded, and
independently per task: :func:`task_seed`) and recomputes the table as weighted sums
(``weights @ per_example``) of per-example values kept while the maps were read once:

- ``finetune_change``: per head, the mean cosine of the pre-trained and fine-tuned maps; the
  replicate table holds each layer's mean over heads (what the claims read, ``group_by: [layer]``
  of the per-head table gives the same);
- ``finetune_special_tokens``: per head, the token-weighted attention to [CLS] / [SEP], then the
  layer mean over heads (as ``analysis.shared.attention_stats``);
- ``patterns``: the share of each pattern type over the maps (every head of an example stays
  together with its example);
- ``disable_heads``: the change of each metric when a whole layer is disabled, paired (the
  unmodified and the disabled model scored on the same resampled examples).

With every weight 1 (or the identity resample) each reproduces its point table (tested).
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from analysis.kovaleva.finetune.disable_heads_null import BATCHED
from analysis.shared.bootstrap import RESAMPLED, resample_indices, unit_weights, with_resampled

REPLICATE = "replicate"


def task_seed(seed: int, task: str) -> int:
    """The seed of a task's resamples: the configured seed and the task's name (stable across
    runs and task lists; different tasks draw independently)."""
    return int(np.random.SeedSequence([seed, zlib.crc32(task.encode())]).generate_state(1)[0])


def task_weights(n_examples: int, resamples: int, seed: int, task: str) -> np.ndarray:
    """(resamples, n_examples) multiplicity of each of a task's examples per resample."""
    return unit_weights(n_examples, resamples, task_seed(seed, task))


def _by_layer(values: np.ndarray, column: str) -> pd.DataFrame:
    """(resamples, layers) values -> rows layer (1-indexed), ``column``, replicate."""
    resamples, n_layers = values.shape
    return pd.DataFrame(
        {
            "layer": np.tile(np.arange(1, n_layers + 1), resamples),
            column: values.ravel(),
            REPLICATE: np.repeat(np.arange(resamples), n_layers),
        }
    )


def cosine_replicates(cosines: np.ndarray, weights: np.ndarray) -> pd.DataFrame:
    """``cosines`` (examples, layers, heads) of ``head_cosines``; per resample and layer the mean
    over heads of each head's weighted mean over examples (columns layer, cosine, replicate)."""
    n, n_layers, n_heads = cosines.shape
    per_head = weights @ cosines.reshape(n, -1) / weights.sum(1, keepdims=True)
    return _by_layer(per_head.reshape(len(weights), n_layers, n_heads).mean(-1), "cosine")


def special_replicates(stats: list[dict], weights: np.ndarray, columns=("cls", "sep")) -> pd.DataFrame:
    """``stats``: each example's ``special_tokens_stats``; per resample and layer the mean over
    heads of each head's attention to the token (weighted sum over examples / weighted tokens)."""
    n_tokens = weights @ np.stack([s["n_tokens"] for s in stats]).reshape(len(stats), -1)
    n_layers = stats[0]["n_tokens"].shape[0]
    out = None
    for col in columns:
        per_head = weights @ np.stack([s[col] for s in stats]).reshape(len(stats), -1) / n_tokens
        t = _by_layer(per_head.reshape(len(weights), n_layers, -1).mean(-1), col)
        out = t if out is None else out.assign(**{col: t[col]})
    return out[["layer", *columns, REPLICATE]]


def share_replicates(pred: pd.DataFrame, weights: np.ndarray, classes) -> pd.DataFrame:
    """``pred``: one group's map predictions (columns input_id, label); per resample the share
    of each of ``classes`` over the maps of the resampled inputs (rows label, share, replicate).
    The inputs are the units in order of first appearance (``weights`` has one column per input)."""
    codes, inputs = pd.factorize(pred["input_id"])
    if weights.shape[1] != len(inputs):
        raise ValueError(f"{weights.shape[1]} weights per resample for {len(inputs)} inputs")
    unknown = set(pred["label"]) - set(classes)
    if unknown:
        raise ValueError(f"labels outside {classes}: {sorted(unknown)}")
    labels = pd.Categorical(pred["label"], categories=classes).codes
    counts = np.zeros((len(inputs), len(classes)))
    np.add.at(counts, (codes, labels), 1)
    shares = (weights @ counts) / (weights @ counts.sum(1))[:, None]
    return pd.DataFrame(
        {
            "label": np.tile(classes, len(weights)),
            "share": shares.ravel(),
            REPLICATE: np.repeat(np.arange(len(weights)), len(classes)),
        }
    )


def pattern_share_replicates(pred: pd.DataFrame, variants, resamples: int, seed: int, classes) -> pd.DataFrame:
    """Rule patterns' replicate table: for every (variant, task) of the map predictions ``pred`` whose
    variant is one of ``variants``, the shares of ``classes`` on the task's inputs resampled
    ``resamples`` times (``task_weights``: seeded per task; all heads of an input together), stacked
    (columns variant, task, label, share, replicate)."""
    boots = [
        with_resampled(
            share_replicates(g, task_weights(g["input_id"].nunique(), resamples, seed, task), classes).assign(
                variant=variant, task=task
            ),
            g["input_id"].nunique(),
        )
        for (variant, task), g in pred.groupby(["variant", "task"], sort=False)
        if variant in variants
    ]
    boot = pd.concat(boots, ignore_index=True) if boots else pd.DataFrame(columns=["label", "share", "replicate"])
    return boot.reindex(columns=["variant", "task", "label", "share", "replicate", RESAMPLED])


def _pearson(pred, gold):
    """Pearson r along the last axis (both may have leading axes); 0 where one side is constant."""
    p = pred - pred.mean(-1, keepdims=True)
    g = gold - gold.mean(-1, keepdims=True)
    den = np.sqrt((p * p).sum(-1) * (g * g).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (p * g).sum(-1) / den, 0.0)


# the metrics of analysis.core.glue.metrics on rows of resampled predictions and gold labels
RESAMPLED_METRICS = {
    **{m: BATCHED[m] for m in ("accuracy", "f1", "mcc")},
    "pearson": _pearson,
    "spearman": lambda pred, gold: _pearson(rankdata(pred, axis=-1), rankdata(gold, axis=-1)),
}


def layer_change_replicates(metrics: list[str], gold, unmodified, layers, idx: np.ndarray) -> pd.DataFrame:
    """Per resample (a row of ``idx``, resampled example indices) and whole disabled layer: the
    change of each metric from the unmodified predictions ``unmodified`` (n,) to those with the
    layer disabled ``layers`` (layers, n), both on the resample's examples. Columns metric, scope
    (``layer``), layer (1-indexed), change, replicate."""
    gold, unmodified, layers = np.asarray(gold, dtype=float), np.asarray(unmodified), np.asarray(layers)
    g, base = gold[idx], unmodified[idx]
    parts = []
    for metric in metrics:
        score = RESAMPLED_METRICS[metric]
        base_score = score(base, g)
        change = np.stack([score(layer[idx], g) - base_score for layer in layers], axis=1)  # (B, layers)
        parts.append(_by_layer(change, "change").assign(metric=metric, scope="layer"))
    return pd.concat(parts, ignore_index=True)[["metric", "scope", "layer", "change", REPLICATE]]


def save_layer_predictions(path, task: str, gold, unmodified, layers) -> None:
    """Rule disable_heads_scores' per-example predictions (``metrics.predictions``): gold (n,),
    ``unmodified`` (n,), ``layers`` (layers, n): each whole layer disabled."""
    with open(path, "wb") as f:  # an open file: np.savez adds no suffix
        np.savez(f, task=np.array(task), gold=gold, unmodified=unmodified, layers=layers)


def load_layer_predictions(path) -> dict:
    with np.load(path) as z:
        return {"task": str(z["task"]), "gold": z["gold"], "unmodified": z["unmodified"], "layers": z["layers"]}


def resample_rows(n_examples: int, resamples: int, seed: int, task: str) -> np.ndarray:
    """(resamples, n_examples) example indices of each resample (the draws of :func:`task_weights`)."""
    return resample_indices(n_examples, resamples, task_seed(seed, task))
