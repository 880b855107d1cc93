"""Training runs: a claim's tables made again with every training seed + r (config ``trainings``, one
count per training family), handed to the engine beside the model's own run. Each seed's run is judged
alone and the claim's quantity read as a random effect over the seeds (its mean, and a t interval on
the between-seed plus the bootstrap variance: :mod:`analysis.scorecard.seeds`), never as k of k
seeds agreeing; a claim on one seed is widened by the seed reference where it has one."""

from __future__ import annotations

from dataclasses import replace

from analysis.scorecard.run import Run

# the training families a claim can name (``trained:`` in config/claims/), each a key of
# config ``trainings``: the trainings its tables come from
TRAININGS = ("probes", "finetune", "classifiers", "staying_true", "mlm_head")


def pool_trainings(runs: list[Run]) -> Run:
    """The model's own run (``runs[0]``) with its training runs (``runs[1:]``, one per further training
    seed: each has the tables its families' trainings make) and the number of trainings (seeds)
    behind each of its tables. Its own tables and replicate tables are left as they are."""
    own = runs[0]
    seeds = {stem: sum(stem in run.tables for run in runs) for stem in own.tables}
    return replace(own, seeds=seeds, trainings=tuple(runs[1:]))


def claim_seeds(claim: dict, seeds: dict[str, int], stems: list[str]) -> int:
    """How many trainings (seeds) a claim's value rests on: 0 for a claim on no training, else the
    most of its tables (``stems``; a table no training changes, e.g. a premise's, has one run)."""
    if not claim.get("trained"):
        return 0
    return max((seeds.get(stem, 1) for stem in stems), default=1)
