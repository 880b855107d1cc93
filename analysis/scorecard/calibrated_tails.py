"""The calibrated tails: per claim and direction, the one-sided level a firm verdict must reach so
that, on the run's own data, it is wrong no more than 2.5% of the time. Measured once by the
calibration on the project's own data (``python -m tools.measure.own_calibration ... --tails-out``,
docs/calibration.md) and committed as config/calibrated_tails.csv (config overview.calibrated_tails).

Why: with 14 documents of unequal accuracy (one far below the rest), the percentile interval of a
ratio is skewed the wrong way, and no interval read off the 14 drawn documents (percentile, basic,
bias-corrected, BCa, bootstrap-t, a wild cluster bootstrap) keeps the 2.5% on the project's own
data. The iterated bootstrap does: the datasets drawn from the run's documents, each with its own
bootstrap, give the distribution of the claim's p where the truth sits on the threshold, and the
level below which only 2.5% of them fall is the tail a verdict must reach (Hall & Martin 1988).

One row per claim and direction (``holds`` / ``does not hold``): ``tail`` (<= 0.025; 0.025: the
nominal level kept), the datasets and resamples it was measured on, the model and commit. A claim
read with a tail t has its p of that direction scaled by 0.025 / t (so p <= 0.025 exactly where the
uncalibrated p <= t) and its firm verdict asks its replicates to agree at the one-sided level t. A
side on which every replicate agrees is firm at any tail, so a claim that errs that way is read with
``interval: t`` (:mod:`analysis.scorecard.t_reading`), whose p, continuous past the last replicate,
decides its firm verdict. No file, or no row: the nominal level."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.scorecard.seed_reference import reference_rows, reference_source

COLUMNS = ["id", "direction", "tail", "datasets", "resamples", "model", "commit"]
DIRECTIONS = ("holds", "does not hold")
NOMINAL = 0.025  # the one-sided level every firm verdict is read at


@dataclass(frozen=True)
class CalibratedTails:
    """The rows of a calibrated tails file (``path``): claim id -> direction -> tail, with the model
    and commit they were measured on (``source``)."""

    path: str
    entries: dict = field(default_factory=dict)
    source: str = ""

    def scale(self, claim_id: str) -> tuple[float, float]:
        """(holds, does not hold): each direction's tail over the nominal 0.025 (1: not calibrated)."""
        tails = self.entries.get(claim_id, {})
        return tuple(tails.get(d, NOMINAL) / NOMINAL for d in DIRECTIONS)


def read_calibrated_tails(path) -> CalibratedTails | None:
    """The calibrated tails at ``path`` (None where there is no such file). A file without the
    columns of :data:`COLUMNS`, an unknown direction, a tail outside (0, 0.025] or a claim and
    direction twice is an error naming the file and the row."""
    path = Path(path)
    df = reference_rows(path, COLUMNS, "a calibrated tails file")
    if df is None:
        return None
    tail = pd.to_numeric(df["tail"], errors="coerce")
    bad = ~((tail > 0) & (tail <= NOMINAL)) | ~df["direction"].isin(DIRECTIONS)
    bad = df.index[bad | df.duplicated(["id", "direction"])]
    if len(bad):
        row = df.loc[bad[0]]
        raise ValueError(
            f"{path}: row {bad[0] + 2} ({row['id']}, {row['direction']!r}): tail {row['tail']!r} must be a number in "
            f"(0, {NOMINAL}], direction one of {', '.join(DIRECTIONS)}, each claim and direction on one row "
            "(rerun python -m tools.measure.own_calibration ... --tails-out)"
        )
    entries: dict = {}
    for i, d, t in zip(df["id"], df["direction"], tail):
        entries.setdefault(i, {})[d] = float(t)
    return CalibratedTails(str(path), entries, reference_source(df))


def calibrated_tail(firm_p: np.ndarray, datasets: int, size: float = NOMINAL) -> float:
    """The largest tail t <= 0.025 at which at most ``size`` of ``datasets`` null datasets are firm in
    one direction: ``firm_p`` holds the p of that direction of the datasets firm in it at the nominal
    level (the others stay unfirm at any smaller t). Midway between the last p allowed and the next."""
    p = np.sort(np.asarray(firm_p, dtype=float))
    allowed = int(np.floor(size * datasets + 1e-9))
    if len(p) <= allowed:
        return NOMINAL
    below = p[p < p[allowed]]  # a tie at the first p too many goes out with it
    return float(min(NOMINAL, ((below[-1] if len(below) else 0.0) + p[allowed]) / 2))


def scaled_p(p: float, scale: float) -> float:
    """A one-sided p read at a calibrated tail (``scale`` = tail / 0.025 <= 1): p / scale, at most 1."""
    return float(min(1.0, p / scale)) if np.isfinite(p) else p


def apply_tails(judged, scale: tuple[float, float]):
    """A judgement (:class:`analysis.scorecard.checks.Judgement`, one check or one level) read at its
    claim's calibrated tails (``scale``: (holds, does not hold), each tail / 0.025): its p of each
    direction (and of the interval widened by the seed reference) scaled, and its firmness again;
    returned."""
    if tuple(scale) == (1.0, 1.0):
        return judged
    judged.tail_scale = tuple(scale)
    judged.p_holds, judged.p_fails = (scaled_p(p, s) for p, s in zip((judged.p_holds, judged.p_fails), scale))
    if judged.seed_p is not None:
        judged.seed_p = tuple(scaled_p(p, s) for p, s in zip(judged.seed_p, scale))
    if judged.firm is not None:
        judged.firm = judged.firm_at()
    return judged
