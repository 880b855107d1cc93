"""What the heavy rules of Kovaleva et al. ask a cluster for: each rule's work (matmul GFLOPs,
working set, other seconds) from the model's shape ``s``, the config ``c``, the job's wildcards
``wc`` and ``count`` (corpus -> inputs), in the spine's units (analysis/core/resources.py).
``WORK`` maps each rule to its estimate; analysis/scheduling/heavy_rules.py gathers them."""

from __future__ import annotations

import math

from analysis.core.batch import sizing_batch
from analysis.core.resources import Work, extraction_work, forward_gflop, glue_split, inference_mb, training_mb


def glue_attention(s, c, wc, count):
    k = c["kovaleva_finetune"]
    return extraction_work(s, k["change_examples"], k["finetune"]["max_len"], sizing_batch(c["batch_size"]))


def finetune(s, c, wc, count):
    ft = c["kovaleva_finetune"]["finetune"]
    n, batch = ft["max_len"], ft["batch_size"]
    steps = math.ceil(glue_split(wc["task"], "train", ft["train_examples"]) * ft["epochs"] / batch)
    steps = min(steps, ft["max_steps"] or steps)
    dev = glue_split(wc["task"], "dev", ft["dev_examples"])
    return Work((3 * steps * batch + 2 * dev) * forward_gflop(s, n), training_mb(s, batch, n))


def disable_heads_scores(s, c, wc, count):
    k = c["kovaleva_finetune"]
    n = k["finetune"]["max_len"]
    ranked = glue_split(wc["task"], "dev", k["disable_examples"])
    rows = ranked * (s.n_heads + s.layers + 1)
    # the confirmation: the unmodified model and the carried heads (at most whole passes) on the unused rows
    unused = glue_split(wc["task"], "dev", None) - ranked
    rows += unused * (1 + k["confirm_heads"]) if unused >= k["confirm_min_rows"] else 0
    return Work(rows * forward_gflop(s, n), inference_mb(s, k["disable_max_batch"], n, maps=False))


def pattern_features(s, c, wc, count):
    return extraction_work(
        s, 100, c["max_len"], sizing_batch(c["batch_size"])
    )  # the labelled maps' inputs (config/patterns)


WORK = {
    "glue_attention": glue_attention,
    "finetune": finetune,
    "disable_heads_scores": disable_heads_scores,
    "pattern_features": pattern_features,
}
