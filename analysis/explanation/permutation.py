"""Permutation test of Jain & Wallace 2019 (rule ``permutation``): permute the attention
weights over the items, keep the token representations, measure the output change (TVD)."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import torch

from analysis.explanation.divergences import tvd
from analysis.explanation.explainer import instance_fields

log = logging.getLogger(__name__)


def permutation_test(a: torch.Tensor, decide_attn, p0: torch.Tensor, n_perm: int, rng: np.random.Generator) -> dict:
    """Permute the attention weights ``n_perm`` times; output change (TVD) per permutation
    and its median. ``decide_attn(A (B, n)) -> probs (B, C)``."""
    perms = np.stack([rng.permutation(a.shape[-1]) for _ in range(n_perm)])
    with torch.no_grad():
        P = decide_attn(a[torch.as_tensor(perms)]).detach()
    p0 = p0.detach()
    d = tvd(P, p0[None]).numpy()
    return {
        "median_output_change": float(np.median(d)),
        "max_output_change": float(d.max()),
        "flip_rate": float((P.argmax(-1) != p0.argmax()).float().mean()),
    }


def permutation_rows(instances, explainer, n_perm: int, seed: int) -> list[dict]:
    rows = []
    for inst in instances:
        rng = np.random.default_rng([seed, inst.id])
        res = permutation_test(
            inst.a, lambda A, inst=inst: explainer.probs_with_attention(inst, A), inst.probs, n_perm, rng
        )
        rows.append({**instance_fields(inst), **res})
    return rows


def run_permutation(classifiers, n_perm: int, seed: int) -> pd.DataFrame:
    """Rule ``permutation``: one row per instance of every ``(encoder, explainer, instances)``
    of ``classifiers`` (:func:`analysis.explanation.setup.classifiers_under_test`)."""
    rows = []
    for enc, ex, inst in classifiers:
        rows += [{"encoder": enc, **r} for r in permutation_rows(inst, ex, n_perm, seed)]
        log.info("%s: %d instances", enc, len(inst))
    return pd.DataFrame(rows)
