"""What the engine reads of one run of a model: its tables, their replicate tables, the trainings
behind each table and the rules left out. One object, so the data cross the engine's files one way
(tables in, judgements with named numeric terms out) instead of as long parameter lists."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass(frozen=True)
class Run:
    """One run's tables by stem (``tables``), their replicate tables (``boots``: ``<stem>.boot.csv``),
        the number of trainings (seeds) behind each table (``seeds``), the stems of the rules not
        selected (``not_selected``, config overview.scorecard_rules: their claims are 'not run'), the
        model's training runs (``trainings``: one Run per further training seed, each judged alone and
        combined as a random effect, :mod:`analysis.scorecard.seeds`; set by
        :func:`analysis.scorecard.trainings.pool_trainings`) and the seed reference a one-seed claim is
        widened by (``reference``: :mod:`analysis.scorecard.seed_reference`; None: none read), and the
    control reference a one-draw control is read with (``control_reference``:
    :mod:`analysis.scorecard.control_reference`; None: none read), and the calibrated tails its
    claims are read at (``calibrated_tails``: :mod:`analysis.scorecard.calibrated_tails`; None: the
    nominal 2.5%)."""

    tables: dict[str, pd.DataFrame]
    boots: dict[str, pd.DataFrame] = field(default_factory=dict)
    seeds: dict[str, int] = field(default_factory=dict)
    not_selected: frozenset = frozenset()
    trainings: tuple = ()
    reference: object = None
    control_reference: object = None
    calibrated_tails: object = None
