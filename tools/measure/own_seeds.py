"""Training seeds in the calibration on the project's own data (tools/measure/own_calibration.py): a
family's run pooled over its seeds as the scorecard pools them, and where each seed's quantity is
placed in a new dataset.

A dataset keeps every seed's own per-unit outputs (its units drawn again, alike for every seed) and
draws the seeds' offsets from their mean anew: normal, with the claim's between-seed SD (the
committed seed reference's, else the SD of the run's own seeds). So the truth a dataset is shifted to
is the mean over new seeds and new units, as the engine's random effect reads it; a one-seed claim
(a family trained once in the default run) is read with the seed reference, as the scorecard reads
it. A family with no training has SD 0 and its datasets are drawn exactly as before."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from analysis.scorecard.run import Run
from analysis.scorecard.seeds import seed_runs
from analysis.scorecard.trainings import pool_trainings
from analysis.scorecard.values import specs_of
from analysis.shared.bootstrap import with_resampled
from tools.measure.own_families import Family, point_of
from tools.measure.own_shifts import NotCovered, Quantity, moved, moved_seeds, seed_quantities


def family_run(family: Family, point, boot, tails=None, reference=None) -> Run:
    """The run a family's tables make with units weighted ``point`` (1, units) and resampled ``boot``
    (B, units): every training seed's, pooled (:func:`analysis.scorecard.trainings.pool_trainings`)."""
    runs = [
        Run(
            point_of(make(point)),
            {k: with_resampled(v, family.n_clusters) for k, v in make(boot).items()},
            calibrated_tails=tails,
            reference=reference,
        )
        for make in (family.make, *family.trainings)
    ]
    return pool_trainings(runs) if family.trainings else runs[0]


class Placed(NamedTuple):
    """A claim's quantity on the run, per level: each seed's (levels, k), the SD a shift of one SE
    means (the bootstrap SD of the seed mean and the between-seed SD over k seeds), the between-seed
    SD its seeds' offsets are drawn with, and where that SD comes from."""

    seeds: np.ndarray
    se: np.ndarray
    seed_sd: np.ndarray
    sd_from: str


def placed(claim: dict, run: Run, levels, reference) -> Placed:
    """Where the claim's quantity stands on ``run`` (:class:`Placed`); ``reference``: the seed
    reference (:class:`analysis.scorecard.seed_reference.SeedReference`, None: none)."""
    check = claim["check"]
    q, within = seed_quantities(check, seed_runs(run, specs_of(check)), levels)  # one seed: (levels, 1)
    if not claim.get("trained"):
        return Placed(q, within, np.zeros(len(levels)), "")
    name = "value" if "value" in check else "difference1"
    rows = reference.of(claim["id"]) if reference is not None else {}
    committed = [rows.get("" if lv is None else str(lv), {}).get(name) for lv in levels]
    if all(c is not None for c in committed):
        sd, source = np.array([c[0] for c in committed]), "seed reference"
    elif q.shape[1] > 1:
        sd, source = q.std(axis=1, ddof=1), "the run's seeds"
    else:
        raise NotCovered("one training seed and no seed reference row: no between-seed SD to draw seeds with")
    return Placed(q, np.sqrt(sd**2 / q.shape[1] + within**2), sd, source)


def seed_offsets(where: Placed, rng) -> np.ndarray:
    """Each seed's offset from the seed mean in one dataset (levels, k): normal with the between-seed SD."""
    if not where.seed_sd.any():
        return np.zeros(where.seeds.shape)
    return rng.normal(size=where.seeds.shape) * where.seed_sd[:, None]


def moved_to(claim: dict, quantity: Quantity, run: Run, levels, where: Placed, target, offsets):
    """The claim and dataset ``run`` with the seed mean's truth at ``target`` (per level) and each
    seed ``offsets`` from it."""
    changes = target[:, None] - where.seeds + offsets
    if where.seeds.shape[1] == 1:
        return moved(claim, quantity, run, levels, changes[:, 0])
    return moved_seeds(claim, quantity, run, levels, changes)
