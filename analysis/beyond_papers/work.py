"""What the heavy rules beyond the papers ask a cluster for: each rule's work (matmul GFLOPs,
working set, other seconds) from the model's shape ``s``, the config ``c``, the job's wildcards
``wc`` and ``count`` (corpus -> inputs), in the spine's units (analysis/core/resources.py).
``WORK`` maps each rule to its estimate; analysis/scheduling/heavy_rules.py gathers them."""

from __future__ import annotations

import math

from analysis.core.resources import (
    LOO_PIECES,
    Work,
    extraction_work,
    forward_gflop,
    glue_split,
    inference_mb,
    training_mb,
)


def rollout(s, c, wc, count):
    r = c["beyond_papers"]["rollout"]
    n_in, t = glue_split(r["task"], "dev", r["n_examples"]), set(r.get("targets", ["gradient", "blankout"]))
    passes = 1 + 3 * ("gradient" in t) + LOO_PIECES * len(t - {"gradient"})  # gradient: fwd + bwd; erasure: per piece
    return extraction_work(s, n_in, c["kovaleva_finetune"]["finetune"]["max_len"], r["batch_size"], passes=passes)


def head_importance_scores(s, c, wc, count):
    h, n = c["beyond_papers"]["head_importance"], c["kovaleva_finetune"]["finetune"]["max_len"]
    n_in = glue_split(wc["task"], h.get("split", "dev"), h["n_examples"])
    return Work(3 * n_in * forward_gflop(s, n), training_mb(s, h["batch_size"], n, optimizer=False))


def head_pruning_scores(s, c, wc, count):
    p, n = c["beyond_papers"]["pruning"], c["kovaleva_finetune"]["finetune"]["max_len"]
    passes = (math.ceil(1 / p["step"]) + 1) * (1 + p["random_orders"])
    n_in = glue_split(wc["task"], "dev", p["n_examples"])
    batch = c["beyond_papers"]["head_importance"]["batch_size"]
    return Work(passes * n_in * forward_gflop(s, n), inference_mb(s, batch, n))


WORK = {
    "rollout": rollout,
    "head_importance_scores": head_importance_scores,
    "head_pruning_scores": head_pruning_scores,
}
