"""Adversarial attention of Jain & Wallace 2019 (rule ``adversarial``): attention
distributions as far as possible (JSD) from the original whose output moves at most a
tolerance (TVD; for two classes the change of the positive class's probability).

The search is the authors' (successar/AttentionExplanation, ``AdversaryMulti``) by default:
``restarts`` = 5 adversaries per instance, their logits started at log(uniform) plus 3 N(0, 1)
noise, Adam (amsgrad) with lr 0.01 for 500 steps on

    sum_k [ -JSD(adv_k, orig) + 500 relu(TVD_k - 0.01) ]  -  mean_{k, k'} JSD(adv_k, adv_k')

(the last term keeps the K adversaries apart). What is kept is the final adversaries, and per
instance the one with the largest JSD among those whose output moved at most each reported
tolerance (the search's 0.01, and the 0.05 the authors' figures use).

``init: original`` (start next to the original attention), ``keep: best_iterate`` (the best
feasible iterate of the whole run) and the other settings describe cheaper variants: with
1 restart, ``noise`` 1, lr 0.1, 300 steps, penalty 100, no amsgrad, no cross term and
``best_iterate``, the search this project ran before the authors' settings were its default.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from analysis.explanation.divergences import js_divergence, tvd
from analysis.explanation.explainer import instance_fields

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AdversarySearch:
    """The settings of one search; the defaults are the authors'."""

    restarts: int = 5
    init: str = "uniform_noise"  # logits from log(uniform) + noise; "original": from log(attention) + noise
    noise: float = 3.0
    steps: int = 500
    lr: float = 0.01
    amsgrad: bool = True
    penalty: float = 500.0
    tolerance: float = 0.01  # the search's bound on the output change
    cross_jsd: bool = True
    keep: str = "final"  # "final": the adversaries after the last step; "best_iterate": the best of every step
    report_tolerances: tuple[float, ...] = (0.01, 0.05)


def _start_logits(a0, mask, search: AdversarySearch, g: torch.Generator):
    """(B, n) start logits: log of uniform over the real items (or of the original) plus noise."""
    if search.init == "uniform_noise":
        base = -torch.log(mask.sum(-1, keepdim=True).to(a0.dtype)).expand_as(a0)
    elif search.init == "original":
        base = torch.log(a0.clamp_min(1e-12))
    else:
        raise ValueError(f"explanation.adversarial.init: {search.init!r} is not one of uniform_noise, original")
    return base + search.noise * torch.randn(a0.shape, generator=g, dtype=a0.dtype)


def _cross_jsd(A, B: int, K: int):
    """Per instance, the mean JSD between its K adversaries (every ordered pair, self-pairs = 0)."""
    Ak = A.view(B, K, -1)
    return js_divergence(Ak[:, :, None, :], Ak[:, None, :, :]).mean((1, 2))


def _best_feasible(j, d, amax, feasible, B: int, K: int):
    """Per instance, (JSD, TVD, max weight, number feasible) of the feasible adversary with the
    largest JSD (of K); the original (JSD 0) when none is feasible."""
    jk = torch.where(feasible, j, torch.full_like(j, -1.0)).view(B, K)
    best = jk.argmax(-1)
    pick = torch.arange(B) * K + best
    any_ok = feasible.view(B, K).any(-1)
    return (
        torch.where(any_ok, j[pick], 0.0),
        torch.where(any_ok, d[pick], 0.0),
        torch.where(any_ok, amax[pick], torch.nan),
        feasible.view(B, K).sum(-1),
    )


def adversarial_attention(H, mask, a0, out_fn, p0, search: AdversarySearch, seed: int) -> dict[str, np.ndarray]:
    """Attention distributions far (max JSD) from ``a0`` whose output moves <= each of
    ``search.report_tolerances``.

    Batched over instances and restarts: H (B, n, d), mask (B, n) bool, a0 (B, n), p0 (B, C),
    ``out_fn(H, A) -> logits``. Returns arrays of shape (tolerances, B): ``jsd``,
    ``output_change`` (0 where no adversary was feasible: the original is kept),
    ``adversary_max_weight`` (the original's where none was feasible) and ``n_feasible``
    (of the restarts; with ``keep: best_iterate``, 1 if any iterate was).
    """
    B, K = a0.shape[0], search.restarts
    g = torch.Generator().manual_seed(seed)
    neg = torch.finfo(a0.dtype).min
    Hk, maskk, a0k, p0k = (t.repeat_interleave(K, 0) for t in (H, mask, a0, p0))
    z = _start_logits(a0k, maskk, search, g).masked_fill(~maskk, 0.0).clone().requires_grad_(True)
    opt = torch.optim.Adam([z], lr=search.lr, amsgrad=search.amsgrad)
    tols = search.report_tolerances
    best = {t: [torch.zeros(B, dtype=torch.float64)] * 2 + [a0.max(-1).values.double(), torch.zeros(B)] for t in tols}
    for step in range(search.steps + 1):
        A = torch.softmax(z.masked_fill(~maskk, neg), -1)
        P = torch.softmax(out_fn(Hk, A), -1)
        d = tvd(P, p0k)
        j = js_divergence(A, a0k).to(A.dtype)
        if search.keep == "best_iterate":
            with torch.no_grad():
                amax = A.max(-1).values.double()
                for t in tols:
                    bj, bd, bmax, found = best[t]
                    cj, cd, cmax, n_ok = _best_feasible(j.double(), d.double(), amax, d <= t, B, K)
                    upd = (n_ok > 0) & (cj > bj)
                    best[t] = [torch.where(upd, cj, bj), torch.where(upd, cd, bd), torch.where(upd, cmax, bmax)]
                    best[t].append(torch.where(upd, 1.0, found))
        if step == search.steps:
            break
        loss = (-j + search.penalty * torch.relu(d - search.tolerance)).sum()
        if search.cross_jsd and K > 1:
            loss = loss - _cross_jsd(A, B, K).to(A.dtype).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    if search.keep == "final":
        with torch.no_grad():
            amax = A.max(-1).values.double()
            for t in tols:
                bj, bd, bmax, n_ok = _best_feasible(j.double(), d.double(), amax, d <= t, B, K)
                best[t] = [bj, bd, torch.where(n_ok > 0, bmax, a0.max(-1).values.double()), n_ok]
    elif search.keep != "best_iterate":
        raise ValueError(f"explanation.adversarial.keep: {search.keep!r} is not one of final, best_iterate")
    keys = ("jsd", "output_change", "adversary_max_weight", "n_feasible")
    return {k: np.stack([best[t][i].detach().double().numpy() for t in tols]) for i, k in enumerate(keys)}


def adversarial_rows(instances, explainer, search: AdversarySearch, seed: int, batch_size: int = 64) -> list[dict]:
    """Batched adversarial search over instances padded to a common length: one row per
    instance and reported tolerance."""
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
        res = adversarial_attention(H, mask, a0, out_fn, p0, search, seed=seed + start)
        for ti, tol in enumerate(search.report_tolerances):
            for k, inst in enumerate(chunk):
                rows.append(
                    {
                        "tolerance": tol,
                        **instance_fields(inst),
                        "jsd": float(res["jsd"][ti, k]),
                        "output_change": float(res["output_change"][ti, k]),
                        "adversary_max_weight": float(res["adversary_max_weight"][ti, k]),
                        "n_feasible": int(res["n_feasible"][ti, k]),
                        "restarts": search.restarts,
                    }
                )
    return rows


def run_adversarial(classifiers, search: AdversarySearch, seed: int) -> pd.DataFrame:
    """Rule ``adversarial``: one row per instance and reported tolerance of every
    ``(encoder, explainer, instances)`` of ``classifiers``
    (:func:`analysis.explanation.setup.classifiers_under_test`)."""
    rows = []
    for enc, ex, inst in classifiers:
        res = adversarial_rows(inst, ex, search, seed)
        rows += [{"encoder": enc, "search_tolerance": search.tolerance, **r} for r in res]
        for tol in search.report_tolerances:
            med = pd.Series([r["jsd"] for r in res if r["tolerance"] == tol]).median()
            log.info("%s: %d instances, median JSD %.3f at output change <= %g", enc, len(inst), med, tol)
    return pd.DataFrame(rows)
