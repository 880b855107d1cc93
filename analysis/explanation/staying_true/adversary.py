"""Model-based adversary of Wiegreffe & Pinter 2019, as Tutek & Snajder 2020 use it (rule
``staying_true_adversary``): for a trained model M and a trade-off weight lambda, train a
second model A of the same kind to minimise

    mean_i TVD(p_A(x_i), p_M(x_i)) - lambda * mean_i KL(a_A(x_i) || a_M(x_i))

plus A's own regulariser (``regulariser: true``, the default: a ``tying`` / ``mlm`` adversary stays
tied too, as in the authors' code lineage, whose shared training step adds any regulariser the
model sets to the adversary's loss as well; ``false``: the objective alone) over training
sentences, then measure on the dev instances how far its attention went (JSD from M's) and what
output change (TVD) it paid.

TVD is that of the two-class output, ``|p_A - p_M|``; Wiegreffe & Pinter's code (sarahwie/attention,
``batch_tvd``) halves the difference of the one sigmoid output, so the same trade-off is their
lambda times 2 here. KL runs in their direction, KL(a_A || a_M).

A is, as in Wiegreffe & Pinter, a fresh model of M's architecture (``init: fresh``: seeded with
the models' seed + 1, so it does not start at M's own initialisation; embeddings from the same
GloVe initialisation as M's), trained until it stops (``stopping``, :func:`finished`), at most
``max_epochs``. ``range_change`` (the default): the change of the epoch's mean objective (TVD -
lambda * KL, without the regulariser) relative to the range it has covered,
``|L_k - L_{k-1}| / (max_j L_j - min_j L_j)``, is below ``tol`` for ``patience`` epochs in a row
(:func:`levelled_off`); the last epoch is kept. ``patience``: Wiegreffe & Pinter's rule (their
``train_adversarial``): ``loss_patience`` epochs without a new lowest training loss (the epoch's mean
of what the optimiser minimises), then the epoch of the lowest is kept. An adversary the rule
stopped before ``max_epochs`` has *converged* (:func:`finished` on its epochs).
``init: copy`` is the earlier start: a copy of M with a freshly initialised (seeded) attention layer
(at an exact copy the KL term has zero gradient).

The weights trained per model, and the reading of the curves at fixed JSD levels:
:mod:`analysis.explanation.staying_true.adversary_runs`, :mod:`analysis.explanation.staying_true.curves`.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from analysis.core.config_defaults import schema_defaults
from analysis.explanation.classifiers import make_batch
from analysis.explanation.divergences import js_divergence, tvd
from analysis.explanation.staying_true.models import RegularisedLSTM, StayingTrueConfig, build, regulariser

log = logging.getLogger(__name__)


INITS = ("fresh", "copy")
STOPPING = ("range_change", "patience")
# the defaults are the schema's (config staying_true.adversary; batch size and seed: explanation's), so
# that a config built by hand or in a test trains as the default run does, with no second copy to drift
_ADV = schema_defaults("staying_true", "adversary")
_EXPL = schema_defaults("explanation")


@dataclass
class AdversaryConfig:
    weights: tuple = tuple(_ADV["weights"])
    n_train: int = _ADV["n_train"]
    init: str = _ADV["init"]  # fresh: a new seeded model (Wiegreffe & Pinter); copy: attention re-initialised
    max_epochs: int = _ADV["max_epochs"]
    stopping: str = _ADV["stopping"]  # range_change (tol, patience) or patience (loss_patience)
    tol: float = _ADV["tol"]  # range_change: stop when the epoch objective's relative change is below this ...
    patience: int = _ADV["patience"]  # ... for this many epochs in a row
    loss_patience: int = _ADV["loss_patience"]  # patience: epochs without a new lowest training loss
    batch_size: int = _EXPL["batch_size"]
    lr: float = _ADV["lr"]
    regulariser: bool = _ADV["regulariser"]  # the attacked model's regulariser in the adversary's loss
    seed: int = _EXPL["seed"]
    # equal-JSD levels (fixed, on the curves' rising part); None = the largest JSD every model's curve reaches
    jsd_levels: tuple | None = None if _ADV["jsd_levels"] is None else tuple(_ADV["jsd_levels"])
    bracket_jsd: float = _ADV["bracket_jsd"]  # a level is resolved by adversaries within this JSD of it ...
    search_steps: int = _ADV["search_steps"]  # ... which up to this many bisected weights per level look for

    @classmethod
    def from_params(cls, adversary: dict, **rule) -> AdversaryConfig:
        """From the rule's ``staying_true.adversary`` params (every key a field of the same name) and
        what the rule takes from elsewhere (``batch_size``, ``seed``): no key of the config left behind."""
        lists = ("weights", "jsd_levels")
        return cls(**{k: tuple(v) if k in lists and v is not None else v for k, v in adversary.items()}, **rule)


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


def epochs_since_best(losses) -> int:
    """Epochs run since the lowest training loss (its first occurrence: as in Wiegreffe & Pinter's
    loop, an epoch only equal to the best is no improvement)."""
    return len(losses) - 1 - int(np.argmin(losses))


def finished(objectives, losses, cfg: AdversaryConfig) -> bool:
    """Whether training stops after these epochs: ``range_change`` reads the objectives
    (:func:`levelled_off`), ``patience`` the training losses (``loss_patience`` epochs since the best)."""
    if cfg.stopping == "patience":
        return epochs_since_best(losses) >= cfg.loss_patience
    return levelled_off(objectives, cfg.tol, cfg.patience)


def kept_epoch(losses, stopping: str) -> int:
    """0-based epoch whose weights the adversary keeps: the last (``range_change``), the one of the
    lowest training loss (``patience``)."""
    return len(losses) - 1 - (epochs_since_best(losses) if stopping == "patience" else 0)


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
    """Train an adversary of ``target`` on the id lists ``xs`` until it stops (:func:`finished`, at
    most ``cfg.max_epochs``); returns (adversary in eval mode with the weights of
    :func:`kept_epoch`, objective of each step, mean objective of each epoch, mean training loss
    of each epoch)."""
    if cfg.init not in INITS:
        raise ValueError(f"unknown adversary init {cfg.init!r}; one of {INITS}")
    if cfg.stopping not in STOPPING:
        raise ValueError(f"unknown adversary stopping {cfg.stopping!r}; one of {STOPPING}")
    if cfg.init == "fresh":
        adv = fresh_adversary(target, cfg.seed, st_cfg, init_embeddings)
    else:
        adv = copied_adversary(target, cfg.seed)
    target.eval()
    p_all, a_all = target_outputs(target, xs)
    g = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.Adam(adv.parameters(), lr=cfg.lr)
    trace, epochs, losses, best = [], [], [], None
    for _ in range(cfg.max_epochs):
        perm = torch.randperm(len(xs), generator=g).tolist()
        total = total_loss = 0.0
        for start in range(0, len(perm), cfg.batch_size):
            idx = perm[start : start + cfg.batch_size]
            ids, mask = make_batch("lstm", [xs[i] for i in idx])
            p_tgt = p_all[idx]
            a_tgt = torch.nn.utils.rnn.pad_sequence([a_all[i] for i in idx], batch_first=True)
            X = adv.embed(ids)
            H = adv.encode(X, mask)  # the BiLSTM states for tying / mlm (their encode adds nothing)
            a = adv.attention(H, mask)
            obj, _ = adversary_objective(torch.softmax(adv.output(H, a), -1), p_tgt, a, a_tgt, mask, weight)
            loss = obj + regulariser(adv, ids, mask, st_cfg, g, states=(X, H)) if cfg.regulariser else obj
            opt.zero_grad()
            loss.backward()
            opt.step()
            trace.append(float(obj.detach()))
            total += float(obj.detach()) * len(idx)
            total_loss += float(loss.detach()) * len(idx)
        epochs.append(total / len(xs))
        losses.append(total_loss / len(xs))
        if cfg.stopping == "patience" and epochs_since_best(losses) == 0:
            best = copy.deepcopy(adv.state_dict())  # Wiegreffe & Pinter save the model at each new best
        if finished(epochs, losses, cfg):
            break
    if best is not None:
        adv.load_state_dict(best)
    for p in adv.parameters():
        p.requires_grad_(False)
    return adv.eval(), trace, epochs, losses


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
