"""Model-based adversary of Wiegreffe & Pinter 2019, as Tutek & Snajder 2020 use it (rule
``staying_true_adversary``): for a trained model M and a trade-off weight lambda, train a
second model A of the same kind to minimise

    mean_i TVD(p_A(x_i), p_M(x_i)) - lambda * mean_i KL(a_A(x_i) || a_M(x_i))

(plus A's own regulariser, so a ``tying`` / ``mlm`` adversary stays tied too) over training
sentences, then measure on the dev instances how far its attention went (JSD from M's) and
what output change (TVD) it paid.

A is, as in Wiegreffe & Pinter, a fresh model of M's architecture (``init: fresh``: seeded with
the models' seed + 1, so it does not start at M's own initialisation; embeddings from the same
GloVe initialisation as M's), trained until its objective levels off: epochs run until the
change of the epoch's mean objective (TVD - lambda * KL, without the regulariser) relative to
the range it has covered, ``|L_k - L_{k-1}| / (max_j L_j - min_j L_j)``, is below ``tol`` for
``patience`` epochs in a row (:func:`levelled_off`), at most ``max_epochs``. ``init: copy`` is the earlier start: a copy of
M with a freshly initialised (seeded) attention layer (at an exact copy the KL term has zero
gradient).

The adversaries' curves read at one JSD level common to all models ("equal JSD"):
:mod:`analysis.explanation.staying_true_curves`.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from analysis.explanation.classifiers import make_batch
from analysis.explanation.divergences import js_divergence, tvd
from analysis.explanation.staying_true import RegularisedLSTM, StayingTrueConfig, build, regulariser

log = logging.getLogger(__name__)


INITS = ("fresh", "copy")


@dataclass
class AdversaryConfig:
    weights: tuple = (0.0, 0.05, 0.2, 1.0, 8.0)
    n_train: int = 2000
    init: str = "fresh"  # fresh: a new seeded model (Wiegreffe & Pinter); copy: the model, attention re-initialised
    max_epochs: int = 20
    tol: float = 0.02  # stop when the epoch objective's relative change is below this ...
    patience: int = 2  # ... for this many epochs in a row
    batch_size: int = 32
    lr: float = 1e-3
    seed: int = 0
    jsd_level: float | None = None  # equal-JSD level; None = the largest JSD every model's curve reaches


def relative_changes(objectives) -> list[float]:
    """For k = 2..: the change of epoch k, |L_k - L_{k-1}|, relative to the range the epoch
    objectives have covered so far, max_{j<=k} L_j - min_{j<=k} L_j (the objective TVD -
    lambda * KL crosses 0 at small lambda, so it is no scale of its own); 0 when nothing has
    moved yet."""
    out = []
    for k in range(1, len(objectives)):
        seen = objectives[: k + 1]
        span = max(seen) - min(seen)
        out.append(abs(objectives[k] - objectives[k - 1]) / span if span > 0 else 0.0)
    return out


def levelled_off(objectives, tol: float, patience: int = 2) -> bool:
    """The stopping rule: the last ``patience`` relative changes of the epoch objectives are all
    below ``tol`` (needs ``patience + 1`` epochs; a fresh model's objective can stall for an
    epoch before it falls)."""
    changes = relative_changes(objectives)
    return len(changes) >= patience and all(c < tol for c in changes[-patience:])


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


def copied_adversary(target: RegularisedLSTM, seed: int) -> RegularisedLSTM:
    """``init: copy``: a copy of ``target`` whose attention layer is re-initialised (seeded), all
    trainable."""
    adv = copy.deepcopy(target)
    torch.manual_seed(seed)
    for layer in (adv.attention.W, adv.attention.v):
        layer.reset_parameters()
    for p in adv.parameters():
        p.requires_grad_(True)
    return adv.train()


def fresh_adversary(
    target: RegularisedLSTM, seed: int, st_cfg: StayingTrueConfig, init_embeddings=None
) -> RegularisedLSTM:
    """``init: fresh``: a new model of ``target``'s variant and sizes, seeded with ``seed + 1``
    (not the models' own initialisation), embeddings ``init_embeddings`` (the models' GloVe
    start) when given."""
    cfg = dataclasses.replace(st_cfg, seed=seed + 1, hidden=target.d_rnn)
    adv = build(target.variant, target.emb.weight.shape[1], target.emb.weight.shape[0], cfg)
    if init_embeddings is not None:
        adv.emb.weight.data.copy_(torch.as_tensor(init_embeddings))
    return adv.train()


@torch.no_grad()
def _outputs(clf, ids, mask):
    logits, a = clf(ids, mask)
    return torch.softmax(logits, -1), a


@torch.no_grad()
def target_outputs(target, xs, batch_size: int = 256) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The target's output distribution (N, C) and attention (one (n_i,) tensor per sentence)
    on the id lists ``xs``, computed once (they do not change while the adversary trains)."""
    probs, atts = [], []
    for start in range(0, len(xs), batch_size):
        chunk = xs[start : start + batch_size]
        ids, mask = make_batch("lstm", chunk)
        p, a = _outputs(target, ids, mask)
        probs.append(p)
        atts += [a[k, : len(x)] for k, x in enumerate(chunk)]
    return torch.cat(probs), atts


def train_adversary(target, xs, weight: float, cfg: AdversaryConfig, st_cfg: StayingTrueConfig, init_embeddings=None):
    """Train an adversary of ``target`` on the id lists ``xs`` until its objective levels off
    (:func:`levelled_off`, at most ``cfg.max_epochs``); returns (adversary in eval mode,
    objective of each step, mean objective of each epoch)."""
    if cfg.init not in INITS:
        raise ValueError(f"unknown adversary init {cfg.init!r}; one of {INITS}")
    if cfg.init == "fresh":
        adv = fresh_adversary(target, cfg.seed, st_cfg, init_embeddings)
    else:
        adv = copied_adversary(target, cfg.seed)
    target.eval()
    p_all, a_all = target_outputs(target, xs)
    g = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.Adam(adv.parameters(), lr=cfg.lr)
    trace, epochs = [], []
    for _ in range(cfg.max_epochs):
        perm = torch.randperm(len(xs), generator=g).tolist()
        total = 0.0
        for start in range(0, len(perm), cfg.batch_size):
            idx = perm[start : start + cfg.batch_size]
            ids, mask = make_batch("lstm", [xs[i] for i in idx])
            p_tgt = p_all[idx]
            a_tgt = torch.nn.utils.rnn.pad_sequence([a_all[i] for i in idx], batch_first=True)
            X = adv.embed(ids)
            H = adv.encode(X, mask)  # the BiLSTM states for tying / mlm (their encode adds nothing)
            a = adv.attention(H, mask)
            obj, _ = adversary_objective(torch.softmax(adv.output(H, a), -1), p_tgt, a, a_tgt, mask, weight)
            loss = obj + regulariser(adv, ids, mask, st_cfg, g, states=(X, H))
            opt.zero_grad()
            loss.backward()
            opt.step()
            trace.append(float(obj.detach()))
            total += float(obj.detach()) * len(idx)
        epochs.append(total / len(xs))
        if levelled_off(epochs, cfg.tol, cfg.patience):
            break
    for p in adv.parameters():
        p.requires_grad_(False)
    return adv.eval(), trace, epochs


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


def run_adversary(
    models: dict,
    xs_train,
    xs_dev,
    cfg: AdversaryConfig,
    st_cfg: StayingTrueConfig,
    init_embeddings=None,
    instances: list | None = None,
) -> pd.DataFrame:
    """Rule ``staying_true_adversary``: one row per (model, weight): mean / median JSD reached
    and TVD paid on the dev instances, the training objective's first and last values, the
    epochs run, the last two relative changes of the epoch loss and whether it levelled off.
    ``instances``, if given, gets each (model, weight)'s per-instance JSD and TVD (column ``id``:
    the dev instance), for the replicate table."""
    rows = []
    xs_train = xs_train[: cfg.n_train]
    for name, target in models.items():
        for weight in cfg.weights:
            adv, trace, epochs = train_adversary(target, xs_train, float(weight), cfg, st_cfg, init_embeddings)
            changes = [float("nan")] * 2 + relative_changes(epochs)
            d = divergence_on(target, adv, xs_dev)
            if instances is not None:
                instances.append(d.assign(model=name, weight=float(weight), id=np.arange(len(d))))
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
                    "objective_last_epoch": epochs[-1],
                    "objective_rel_change_last": changes[-1],
                    "objective_rel_change_before_last": changes[-2],
                    "levelled_off": levelled_off(epochs, cfg.tol, cfg.patience),
                    "epochs": len(epochs),
                    "steps": len(trace),
                    "init": cfg.init,
                    "n_train": len(xs_train),
                    "n_dev": len(d),
                }
            )
            log.info(
                "%s weight %g: mean JSD %.3f, mean TVD %.3f after %d epochs (last relative change %.4f)",
                *(name, weight, d.jsd.mean(), d.tvd.mean(), len(epochs), changes[-1]),
            )
    return pd.DataFrame(rows)
