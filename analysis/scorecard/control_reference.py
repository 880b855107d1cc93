"""The control reference: each map claim's between-draw SD of the random-init control, measured once
on a run with 3 or more control draws (``python -m tools.measure.control_reference``) and committed
as config/control_reference.csv (config overview.control_reference).

One row per claim: the SD over the draws of the control's strength (how far on the claim's side a
random-init network lies: what :func:`analysis.scorecard.control.beyond_draws` compares the model
with; k - 1 in the denominator), the draws it was measured on, the model and the commit of the run.
A run with one control draw reads it, so a ``learned`` claim must beat a new draw's prediction bound
(the one draw plus t(draws - 1) times the SD times sqrt(2)); a run with 2 or more draws measures its
own spread. No file, or no row for a claim: no spread test on one draw, as before."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.scorecard.seed_reference import reference_rows, reference_source

COLUMNS = ["id", "sd", "draws", "model", "commit"]


@dataclass(frozen=True)
class ControlReference:
    """The rows of a control reference file (``path``): claim id -> (between-draw SD, draws), with
    the model and commit they were measured on (``source``)."""

    path: str
    entries: dict = field(default_factory=dict)
    source: str = ""

    def of(self, claim_id: str) -> tuple[float, int] | None:
        """(SD, draws) of one claim (None where the reference has none)."""
        return self.entries.get(claim_id)


def read_control_reference(path) -> ControlReference | None:
    """The control reference at ``path`` (None where there is no such file). A file without the
    columns of :data:`COLUMNS`, with an SD that is no finite number >= 0, fewer than 2 draws or a
    claim twice is an error naming the file and the row."""
    path = Path(path)
    df = reference_rows(path, COLUMNS, "a control reference")
    if df is None:
        return None
    sd, draws = pd.to_numeric(df["sd"], errors="coerce"), pd.to_numeric(df["draws"], errors="coerce")
    bad = df.index[~np.isfinite(sd) | (sd < 0) | ~(draws >= 2) | (draws % 1 != 0) | df["id"].duplicated()]
    if len(bad):
        row = df.loc[bad[0]]
        raise ValueError(
            f"{path}: row {bad[0] + 2} ({row['id']}): sd {row['sd']!r} must be a number >= 0, draws {row['draws']!r} a "
            "whole number >= 2, and each claim on one row (rerun python -m tools.measure.control_reference)"
        )
    entries = {i: (float(s), int(k)) for i, s, k in zip(df["id"], sd, draws)}
    return ControlReference(str(path), entries, reference_source(df))
