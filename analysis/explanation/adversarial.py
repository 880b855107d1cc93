"""Adversarial attention of Jain & Wallace 2019 (rule ``adversarial``): attention
distributions as far as possible (JSD) from the original whose output moves at most a
tolerance (TVD)."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import torch

from analysis.explanation.divergences import js_divergence, tvd
from analysis.explanation.explainer import instance_fields

log = logging.getLogger(__name__)


def adversarial_attention(
    H,
    mask,
    a0,
    out_fn,
    p0,
    tolerance: float,
    steps: int,
    lr: float,
    penalty: float,
    seed: int,
) -> dict[str, np.ndarray]:
    """Attention distributions far (max JSD) from ``a0`` whose output moves <= ``tolerance``.

    Batched over instances: H (B, n, d), mask (B, n) bool, a0 (B, n), p0 (B, C),
    ``out_fn(H, A) -> logits``. Gradient ascent (Adam) on JSD(softmax(z), a0) - penalty *
    relu(TVD - tolerance) over logits z, started at log a0 plus seeded noise (the JSD has
    zero gradient at a0). Returns per instance the largest JSD among the iterates that
    satisfy the tolerance (0 when none did except the original), the TVD there and the
    adversary's max weight.
    """
    g = torch.Generator().manual_seed(seed)
    neg = torch.finfo(a0.dtype).min
    z0 = torch.log(a0.clamp_min(1e-12)) + torch.randn(a0.shape, generator=g, dtype=a0.dtype)
    z = z0.masked_fill(~mask, 0.0).clone().requires_grad_(True)
    opt = torch.optim.Adam([z], lr=lr)
    B = a0.shape[0]
    best_j = torch.zeros(B, dtype=torch.float64)
    best_d = torch.zeros(B, dtype=torch.float64)
    best_max = a0.max(-1).values.detach().double().clone()
    for _ in range(steps + 1):
        A = torch.softmax(z.masked_fill(~mask, neg), -1)
        P = torch.softmax(out_fn(H, A), -1)
        d = tvd(P, p0)
        j = js_divergence(A, a0).to(A.dtype)
        with torch.no_grad():
            better = (d <= tolerance) & (j.double() > best_j)
            best_j = torch.where(better, j.double(), best_j)
            best_d = torch.where(better, d.double(), best_d)
            best_max = torch.where(better, A.max(-1).values.double(), best_max)
        loss = (-j + penalty * torch.relu(d - tolerance)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {
        "jsd": best_j.numpy(),
        "output_change": best_d.numpy(),
        "adversary_max_weight": best_max.numpy(),
    }


def adversarial_rows(
    instances, explainer, tolerance: float, steps: int, lr: float, penalty: float, seed: int, batch_size: int = 64
) -> list[dict]:
    """Batched adversarial search over instances padded to a common length."""
    rows = []
    out_fn = explainer.clf.output
    for start in range(0, len(instances), batch_size):
        chunk = instances[start : start + batch_size]
        n = max(i.n for i in chunk)
        H = torch.zeros((len(chunk), n, chunk[0].H.shape[1]))
        a0 = torch.zeros((len(chunk), n))
        mask = torch.zeros((len(chunk), n), dtype=torch.bool)
        for k, inst in enumerate(chunk):
            H[k, : inst.n], a0[k, : inst.n], mask[k, : inst.n] = inst.H, inst.a, True
        p0 = torch.stack([i.probs for i in chunk])
        res = adversarial_attention(H, mask, a0, out_fn, p0, tolerance, steps, lr, penalty, seed=seed + start)
        for k, inst in enumerate(chunk):
            rows.append(
                {
                    **instance_fields(inst),
                    "jsd": float(res["jsd"][k]),
                    "output_change": float(res["output_change"][k]),
                    "adversary_max_weight": float(res["adversary_max_weight"][k]),
                }
            )
    return rows


def run_adversarial(classifiers, tolerance: float, steps: int, lr: float, penalty: float, seed: int) -> pd.DataFrame:
    """Rule ``adversarial``: one row per instance of every ``(encoder, explainer, instances)``
    of ``classifiers`` (:func:`analysis.explanation.setup.classifiers_under_test`)."""
    rows = []
    for enc, ex, inst in classifiers:
        res = adversarial_rows(inst, ex, tolerance, steps, lr, penalty, seed)
        rows += [{"encoder": enc, "tolerance": tolerance, **r} for r in res]
        log.info("%s: %d instances, median JSD %.3f", enc, len(res), pd.Series([r["jsd"] for r in res]).median())
    return pd.DataFrame(rows)
