"""What the heavy rules of Clark et al. ask a cluster for: each rule's work (matmul GFLOPs, working
set, other seconds) from the model's shape ``s``, the config ``c``, the job's wildcards ``wc`` and
``count`` (corpus -> inputs), in the spine's units (analysis/core/resources.py). ``WORK`` maps each
rule to its estimate; analysis/scheduling/heavy_rules.py gathers them."""

from __future__ import annotations

import math

from analysis.core.batch import batch_for
from analysis.core.resources import Work, forward_gflop, inference_mb, training_mb

WORDS_SQ = 1000  # mean squared words per treebank sentence (GUM train: 750), for the probes' word-level maps
VECTORS_MB = 500  # GloVe 6B 50-d in memory (probes)
PROBE_S = 1.2e-8  # seconds per sentence x epoch x learning-rate run x head x word^2 (probes_train: 173 s, MiniLM)


def mlm_head(s, c, wc, count):
    m = c["clark_surface"]["mlm_head"]
    n_in = m["n_train"] + m["n_heldout"]
    head = s.vocab * s.hidden * 4 * 4 / 2**20 + 1024 * s.vocab * 4 * 2 / 2**20  # head + Adam, logits
    hidden = n_in * c["max_len"] * m["mask_prob"] * s.hidden * 4 / 2**20  # masked tokens' states
    return Work(n_in * forward_gflop(s, c["max_len"]), inference_mb(s, 32, c["max_len"], False) + head + hidden)


def gradient_importance(s, c, wc, count):
    g = c["clark_surface"]["gradient_importance"]
    n_in = g["n_segments"] or count("wiki")
    n = c["max_len"]
    return Work(3 * n_in * forward_gflop(s, n), training_mb(s, g["batch_size"], n, optimizer=False))


def probes_train(s, c, wc, count):
    p = c["clark_probes"]
    sentences = min(p["max_train_sentences"] or math.inf, count(p["train"])) + count(p["dev"])
    copies = 2 if p["random_init"] else 1
    held = sentences * s.n_heads * WORDS_SQ * 4 * copies / 2**20
    runs = sum(len(v) for v in p["lr"].values())
    loops = PROBE_S * sentences * p["epochs"] * runs * s.n_heads * WORDS_SQ
    extract = (copies - 1) * sentences * forward_gflop(s, c["max_len"])
    # a CPU rule (CPU_BOUND): its batch is the CPU's
    return Work(extract, held + VECTORS_MB + inference_mb(s, batch_for(c["batch_size"], "cpu"), c["max_len"]), loops)


WORK = {"mlm_head": mlm_head, "gradient_importance": gradient_importance, "probes_train": probes_train}
