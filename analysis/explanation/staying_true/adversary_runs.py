"""Rule ``staying_true_adversary``'s table (:func:`run_adversary`): per attacked model, one adversary
(:func:`~analysis.explanation.staying_true.adversary.train_adversary`) per trade-off weight of the
grid (``weights``), then, per JSD level, a bisection on the weight
(:func:`~analysis.explanation.staying_true.curves.next_weight`): while an adversary bracketing the
level on the model's curve is more than ``bracket_jsd`` from it, one more adversary at the midpoint
of the two bracketing adversaries' weights, at most ``search_steps`` per level. The weights that
land near a level differ by model (a tying model's JSD rises between lambda 0.001 and 0.003, a
residual one's between 0.01 and 0.05); every adversary is seeded alike, so the search is
deterministic.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from analysis.explanation.staying_true.adversary import (
    AdversaryConfig,
    divergence_on,
    finished,
    kept_epoch,
    levelled_off,
    relative_changes,
    train_adversary,
)
from analysis.explanation.staying_true.curves import next_weight
from analysis.explanation.staying_true.models import StayingTrueConfig

log = logging.getLogger(__name__)


def adversary_row(
    target, weight: float, xs_train, xs_dev, cfg: AdversaryConfig, st_cfg: StayingTrueConfig, init_embeddings
):
    """Train one adversary of ``target`` at ``weight`` and measure it on ``xs_dev``: (its row of the
    table, its per-instance JSD / TVD / flip frame)."""
    adv, trace, epochs, losses = train_adversary(target, xs_train, weight, cfg, st_cfg, init_embeddings)
    changes = [float("nan")] * 2 + relative_changes(epochs)
    d = divergence_on(target, adv, xs_dev)
    k = max(1, len(trace) // 10)  # objective smoothed over the first / last tenth of the steps
    row = {
        "weight": weight,
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
        # the stopping rule, not the max_epochs cap, ended its training
        "converged": finished(epochs, losses, cfg),
        "epochs": len(epochs),
        "epoch_kept": kept_epoch(losses, cfg.stopping) + 1,
        "stopping": cfg.stopping,
        "regulariser": cfg.regulariser,
        "steps": len(trace),
        "init": cfg.init,
        "n_train": len(xs_train),
        "n_dev": len(d),
    }
    log.info(
        "weight %g: mean JSD %.3f, mean TVD %.3f after %d epochs (converged: %s)",
        *(weight, d.jsd.mean(), d.tvd.mean(), len(epochs), row["converged"]),
    )
    return row, d


def model_adversaries(name, target, xs_train, xs_dev, cfg: AdversaryConfig, st_cfg, init_embeddings):
    """One attacked model's adversaries: the grid's, then the search's at each fixed level; (their
    rows, sorted by weight, column ``source``: grid or search; their per-instance frames, alike)."""
    rows, per_instance = [], []

    def add(weight, source):
        log.info("%s (%s)", name, source)
        row, d = adversary_row(target, float(weight), xs_train, xs_dev, cfg, st_cfg, init_embeddings)
        rows.append({"model": name, **row, "source": source})
        per_instance.append(d.assign(model=name, weight=float(weight), id=np.arange(len(d))))

    for weight in cfg.weights:
        add(weight, "grid")
    for level in () if cfg.jsd_levels is None else cfg.jsd_levels:
        for _ in range(cfg.search_steps):
            weight = next_weight(pd.DataFrame(rows), level, cfg.bracket_jsd)
            if weight is None:
                break
            add(weight, "search")
    order = np.argsort([r["weight"] for r in rows], kind="stable")
    return pd.DataFrame([rows[i] for i in order]), [per_instance[i] for i in order]


def run_adversary(
    models: dict,
    xs_train,
    xs_dev,
    cfg: AdversaryConfig,
    st_cfg: StayingTrueConfig,
    init_embeddings=None,
    instances: list | None = None,
) -> pd.DataFrame:
    """Rule ``staying_true_adversary``: one row per (model, weight), the grid's and the search's
    (:func:`model_adversaries`), by model and weight: mean / median JSD reached and TVD paid on the
    dev instances, the training objective's first and last values, the epochs run and the one kept
    (1-based), the last two relative changes of the epoch objective, whether it levelled off and
    whether it converged. The search runs only at fixed levels (``jsd_levels`` not None).
    ``instances``, if given, gets each (model, weight)'s per-instance JSD and TVD (column ``id``:
    the dev instance), for the replicate table."""
    xs_train = xs_train[: cfg.n_train]
    frames = []
    for name, target in models.items():
        rows, per_instance = model_adversaries(name, target, xs_train, xs_dev, cfg, st_cfg, init_embeddings)
        frames.append(rows)
        if instances is not None:
            instances += per_instance
    return pd.concat(frames, ignore_index=True)
