"""What the heavy rules of the attention-as-explanation tests ask a cluster for: each rule's work
(matmul GFLOPs, working set, other seconds) from the model's shape ``s``, the config ``c``, the
job's wildcards ``wc`` and ``count`` (corpus -> inputs), in the spine's units
(analysis/core/resources.py). ``WORK`` maps each rule to its estimate; analysis/scheduling/heavy_rules.py
gathers them."""

from __future__ import annotations

from analysis.core.resources import LOO_PIECES, Work, forward_gflop, glue_split, inference_mb, training_mb

STATE_PIECES = 32  # mean word pieces per SST-2 sentence kept as float16 states (attention classifiers)


def attn_classifiers(s, c, wc, count):
    e = c["explanation"]
    n_in = glue_split(e["task"], "train", e["n_train"]) + glue_split(e["task"], "dev", e["n_dev"])
    gflop = n_in * forward_gflop(s, c["max_len"])
    mb = inference_mb(s, 64, c["max_len"], maps=False) + n_in * STATE_PIECES * s.hidden * 2 / 2**20
    if "transformer_finetuned" in e["encoders"]:
        f = e["finetuned_transformer"]
        gflop += 3 * f["n_train"] * f["epochs"] * forward_gflop(s, c["max_len"])
        mb = max(mb, training_mb(s, f["batch_size"], c["max_len"]))
    return Work(gflop, mb)


def explain(passes: int):
    """erasure, permutation, ...: ``passes`` forward passes per explained input (states, leave-one-out)."""

    def work(s, c, wc, count):
        e = c["explanation"]
        return Work(e["n_explain"] * passes * forward_gflop(s, c["max_len"]), inference_mb(s, 64, c["max_len"]))

    return work


WORK = {
    "attn_classifiers": attn_classifiers,
    "erasure": explain(2),
    "erasure_cls": explain(1 + LOO_PIECES),
    "permutation": explain(2),
    "adversarial": explain(2),
    "rank_agreement": explain(2 + LOO_PIECES),
}
