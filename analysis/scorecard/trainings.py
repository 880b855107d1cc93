"""Training runs: a claim's tables made again with every training seed + r (config
``trainings``, one count per training family), pooled into the replicate tables that the claim's
interval and verdict are read from (:mod:`analysis.scorecard.evaluate`).

The point value stays the model's own run (seed + 0), so a rerun of the default gives the same
tables. The pooled replicates are every training's bootstrap replicates side by side (each seed's
resamples of its units) where every training has them, else the trainings' own tables, one
replicate per seed: the interval then spans both the choice of inputs and the training's seed.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from analysis.scorecard.run import Run
from analysis.scorecard.values import REPLICATE

# the training families a claim can name (``trained:`` in config/claims/), each a key of
# config ``trainings``: the trainings its tables come from
TRAININGS = ("probes", "finetune", "classifiers", "staying_true", "mlm_head")


def _renumbered(boot: pd.DataFrame, offset: int) -> tuple[pd.DataFrame, int]:
    """``boot`` with its replicate ids mapped to ``offset``, ``offset + 1``, ... (and the next free id)."""
    ids = sorted(boot[REPLICATE].unique())
    mapping = {old: offset + i for i, old in enumerate(ids)}
    return boot.assign(**{REPLICATE: boot[REPLICATE].map(mapping)}), offset + len(ids)


def pool_trainings(runs: list[Run]) -> Run:
    """Pool the trainings of each table: ``runs`` holds one Run (tables, replicate tables) for each
    training seed, the model's own run first. Returns the model's own run with the pooled replicate
    tables and the number of trainings (seeds) behind each of its tables."""
    own = runs[0]
    boots, seeds = dict(own.boots), {}
    for stem in own.tables:
        trained = [run for run in runs if stem in run.tables]
        seeds[stem] = len(trained)
        if len(trained) == 1:
            continue
        parts, offset = [], 0
        if all(stem in run.boots for run in trained):
            for run in trained:
                part, offset = _renumbered(run.boots[stem], offset)
                parts.append(part)
            boots[stem] = pd.concat(parts, ignore_index=True)
        else:  # no bootstrap of this table: each training's own table is one value, read by a t interval
            parts = [run.tables[stem].assign(**{REPLICATE: i}) for i, run in enumerate(trained)]
            boots[stem] = pd.concat(parts, ignore_index=True)
            boots[stem].attrs["seeds"] = len(trained)
    return replace(own, boots=boots, seeds=seeds)


def claim_seeds(claim: dict, seeds: dict[str, int], stems: list[str]) -> int:
    """How many trainings (seeds) a claim's value rests on: 0 for a claim on no training, else the
    most of its tables (``stems``; a table no training changes, e.g. a premise's, has one run)."""
    if not claim.get("trained"):
        return 0
    return max((seeds.get(stem, 1) for stem in stems), default=1)
