"""Model-based adversary of Wiegreffe & Pinter 2019, as Tutek & Snajder 2020 use it (rule
``staying_true_adversary``): for a trained model M and a trade-off weight lambda, train a
second model A of the same kind to minimise

    mean_i TVD(p_A(x_i), p_M(x_i)) - lambda * mean_i KL(a_A(x_i) || a_M(x_i))

(plus A's own regulariser, so a ``tying`` / ``mlm`` adversary stays tied too) over training
sentences, then measure on the dev instances how far its attention went (JSD from M's) and
what output change (TVD) it paid. A starts as a copy of M with a freshly initialised
(seeded) attention layer: at an exact copy the KL term has zero gradient.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from analysis.explanation.classifiers import make_batch
from analysis.explanation.divergences import js_divergence, tvd
from analysis.explanation.staying_true import RegularisedLSTM, StayingTrueConfig, regulariser

log = logging.getLogger(__name__)


@dataclass
class AdversaryConfig:
    weights: tuple = (0.0, 0.05, 0.2, 1.0, 8.0)
    n_train: int = 2000
    epochs: int = 1
    batch_size: int = 32
    lr: float = 1e-3
    seed: int = 0


def masked_kl(p, q, mask) -> torch.Tensor:
    """KL(p || q) per row over the unmasked positions (p, q: (B, n); 0 log 0 = 0)."""
    p = p.masked_fill(~mask, 0.0)
    logs = torch.log(p.clamp_min(1e-12)) - torch.log(q.clamp_min(1e-12))
    return torch.where(p > 0, p * logs, torch.zeros_like(p)).sum(-1)


def adversary_objective(p_adv, p_tgt, a_adv, a_tgt, mask, weight: float) -> tuple[torch.Tensor, dict]:
    """(mean TVD - weight * mean KL(a_adv || a_tgt), its parts)."""
    d = tvd(p_adv, p_tgt).mean()
    kl = masked_kl(a_adv, a_tgt, mask).mean()
    return d - weight * kl, {"tvd": float(d.detach()), "kl": float(kl.detach())}


def fresh_adversary(target: RegularisedLSTM, seed: int) -> RegularisedLSTM:
    """A copy of ``target`` whose attention layer is re-initialised (seeded), all trainable."""
    adv = copy.deepcopy(target)
    torch.manual_seed(seed)
    for layer in (adv.attention.W, adv.attention.v):
        layer.reset_parameters()
    for p in adv.parameters():
        p.requires_grad_(True)
    return adv.train()


@torch.no_grad()
def _outputs(clf, ids, mask):
    logits, a = clf(ids, mask)
    return torch.softmax(logits, -1), a


def train_adversary(target, xs, weight: float, cfg: AdversaryConfig, st_cfg: StayingTrueConfig):
    """Train an adversary of ``target`` on the id lists ``xs``; returns (adversary in eval
    mode, objective of each step)."""
    adv = fresh_adversary(target, cfg.seed)
    target.eval()
    g = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.Adam(adv.parameters(), lr=cfg.lr)
    trace = []
    for _ in range(cfg.epochs):
        perm = torch.randperm(len(xs), generator=g).tolist()
        for start in range(0, len(perm), cfg.batch_size):
            ids, mask = make_batch("lstm", [xs[i] for i in perm[start : start + cfg.batch_size]])
            p_tgt, a_tgt = _outputs(target, ids, mask)
            logits, a = adv(ids, mask)
            obj, _ = adversary_objective(torch.softmax(logits, -1), p_tgt, a, a_tgt, mask, weight)
            loss = obj + regulariser(adv, ids, mask, st_cfg, g)
            opt.zero_grad()
            loss.backward()
            opt.step()
            trace.append(float(obj.detach()))
    for p in adv.parameters():
        p.requires_grad_(False)
    return adv.eval(), trace


@torch.no_grad()
def divergence_on(target, adv, xs, batch_size: int = 128) -> pd.DataFrame:
    """Per sentence: JSD(a_adv, a_target), TVD(p_adv, p_target), decision flipped."""
    rows = []
    for start in range(0, len(xs), batch_size):
        ids, mask = make_batch("lstm", xs[start : start + batch_size])
        p_t, a_t = _outputs(target, ids, mask)
        p_a, a_a = _outputs(adv, ids, mask)
        j, d = js_divergence(a_a, a_t).numpy(), tvd(p_a, p_t).numpy()
        flip = (p_a.argmax(-1) != p_t.argmax(-1)).numpy()
        rows += [{"jsd": float(j[k]), "tvd": float(d[k]), "flipped": bool(flip[k])} for k in range(len(j))]
    return pd.DataFrame(rows)


def run_adversary(models: dict, xs_train, xs_dev, cfg: AdversaryConfig, st_cfg: StayingTrueConfig) -> pd.DataFrame:
    """Rule ``staying_true_adversary``: one row per (model, weight): mean / median JSD reached
    and TVD paid on the dev instances, the training objective's first and last values."""
    rows = []
    xs_train = xs_train[: cfg.n_train]
    for name, target in models.items():
        for weight in cfg.weights:
            adv, trace = train_adversary(target, xs_train, float(weight), cfg, st_cfg)
            d = divergence_on(target, adv, xs_dev)
            k = max(1, len(trace) // 10)  # objective smoothed over the first / last tenth of the steps
            rows.append(
                {
                    "model": name,
                    "weight": float(weight),
                    "mean_jsd": d.jsd.mean(),
                    "median_jsd": d.jsd.median(),
                    "mean_tvd": d.tvd.mean(),
                    "median_tvd": d.tvd.median(),
                    "flip_rate": d.flipped.mean(),
                    "objective_first": float(np.mean(trace[:k])),
                    "objective_last": float(np.mean(trace[-k:])),
                    "steps": len(trace),
                    "n_train": len(xs_train),
                    "n_dev": len(d),
                }
            )
            log.info("%s weight %g: mean JSD %.3f, mean TVD %.3f", name, weight, d.jsd.mean(), d.tvd.mean())
    return pd.DataFrame(rows)
