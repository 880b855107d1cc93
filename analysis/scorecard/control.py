"""The random-init control of a claim read off attention maps: the model's lead over each control
draw as a paired difference on the same resamples, the spread of several draws, and the verdict by
the claim's control role (``learned``, ``absence``, ``descriptive``). Numbers only: the words are
:mod:`analysis.scorecard.wording`'s."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from analysis.scorecard.checks import AGREEMENT
from analysis.scorecard.evaluate import ALSO_RANDOM, INCONCLUSIVE, Outcome
from analysis.scorecard.few_units import MIN_CLUSTERS, few_unit_p, required_share


@dataclass(frozen=True)
class Difference:
    """The model's lead over a control draw in the claim's direction (> 0: further on the claim's
    side): its point, 95% interval (widened for few clusters), whether it is firmly above 0 (None:
    no replicates), its bootstrap p, the clusters drawn, and ``kind``: interval | point only |
    no replicates | few units."""

    point: float
    low: float = np.nan
    high: float = np.nan
    firm: bool | None = None
    p: float = np.nan
    units: float = np.inf
    kind: str = "interval"


def paired_difference(model: Outcome, control: Outcome) -> Difference | None:
    """The model's lead over its random-init control on the same resamples (their replicate tables
    resample the same units with the same seeds); None where either has no strength."""
    if not np.isfinite(model.strength_point) or not np.isfinite(control.strength_point):
        return None
    point = model.strength_point - control.strength_point
    if model.strength is None or control.strength is None:
        return Difference(point, kind="point only")
    reps = (model.strength - control.strength.reindex(model.strength.index)).dropna()
    if reps.empty:
        return Difference(point, kind="no replicates")
    # as the model's own verdict: widened where its tables resample few clusters
    share = required_share(1 - AGREEMENT, model.units)
    if not np.isfinite(share) or model.units < MIN_CLUSTERS:
        return Difference(point, firm=False, units=model.units, kind="few units")
    lo, hi = np.quantile(reps, [1 - share, share])
    above = float((reps > 0).sum() / len(model.strength))
    p = few_unit_p(float((1 + (reps <= 0).sum()) / (1 + len(reps))), model.units)
    return Difference(point, float(lo), float(hi), above >= share, p, model.units)


def _firm(d: Difference | None) -> bool | None:
    return None if d is None else d.firm


def beyond_draws(
    model: Outcome, controls: list[Outcome], side: int = 1, reference: tuple[float, int] | None = None
) -> tuple[bool, float]:
    """Whether the model is further on the claim's side than a new random-init draw would be: its
    strength (how far on the claim's side) above the upper end of the 95% t prediction interval of
    the draws' strengths, mean + t(0.975, k - 1) sd sqrt(1 + 1/k), over the k >= 2 draws with a
    strength; and that bound. One draw with a ``reference`` (between-draw SD, draws it was measured
    on: :mod:`analysis.scorecard.control_reference`): the draw + t(0.975, draws - 1) SD sqrt(2).
    ``side`` -1: further *against* the claim's side (below the lower end). Fewer than 2 such draws
    and no reference: no test (True, NaN)."""
    x = np.array([c.strength_point for c in controls], dtype=float)
    x = x[np.isfinite(x)]
    k = len(x)
    if not np.isfinite(model.strength_point) or k == 0 or (k < 2 and reference is None):
        return True, np.nan
    sd, df = (x.std(ddof=1), k - 1) if k >= 2 else (reference[0], reference[1] - 1)
    bound = x.mean() + side * stats.t.ppf(0.975, df) * sd * np.sqrt(1 + 1 / k)
    return bool(side * model.strength_point > side * bound), float(bound)


def _spread(controls: list[Outcome], reference, strength: float, bound: float) -> tuple:
    """The reason a claim sits within the draws' spread: measured on this run's draws, or read from the reference."""
    if len(controls) >= 2 or reference is None:
        return ("spread", len(controls), strength, bound)
    return ("reference spread", reference[1], reference[0], strength, bound)


def _absence(outcome: Outcome, controls: list[Outcome], reference=None) -> tuple[str, tuple | None]:
    """An ``absence`` claim that holds: it stands where the model has firmly more of the structure
    than every comparable control draw (it learnt some, not enough for the claim: a finding about
    training); where it has no more than a random network, the absence is a random network's too
    (ALSO_RANDOM), as for a random-init model judged as the main model."""
    against = [paired_difference(c, outcome) for c in controls]  # control minus model, on the claim's side
    comparable = [(d, diff) for d, diff in enumerate(against, start=1) if _firm(diff) is not None]
    if not comparable:
        return outcome.verdict, None
    for d, diff in comparable:
        if not diff.firm:
            return ALSO_RANDOM, ("no more", d, diff)
    beyond, bound = beyond_draws(outcome, controls, side=-1, reference=reference)
    if not beyond:
        return ALSO_RANDOM, _spread(controls, reference, outcome.strength_point, bound)
    return "holds", None


def with_control(
    outcome: Outcome, controls: list[Outcome], role: str, reference: tuple[float, int] | None = None
) -> tuple[str, Difference | None, tuple | None]:
    """(verdict, the lead over the first draw, why) of a claim read off maps, by its control role:
    ``learned`` supports the claim only when the model is firmly further on its side than every
    control draw that can be compared with it (a paired difference; with 2 or more draws, or one and
    the claim's between-draw SD from the control ``reference``, also beyond their spread,
    :func:`beyond_draws`; else ALSO_RANDOM; no draw comparable: as ``descriptive``);
    ``absence`` keeps it where the model has firmly more of the structure than every draw, still
    too little (:func:`_absence`; a random network lacking the structure does not weaken a claim
    that a trained one lacks it), else ALSO_RANDOM; ``descriptive`` keeps it unless a control draw
    holds or is undecided too (ALSO_RANDOM)."""
    if not controls:
        return outcome.verdict, None, None
    pairs = [paired_difference(outcome, c) for c in controls]
    diff = pairs[0]
    if outcome.verdict != "holds":
        return outcome.verdict, diff, None
    if role == "absence":
        verdict, why = _absence(outcome, controls, reference)
        return verdict, diff, why
    comparable = [(d, p) for d, p in enumerate(pairs, start=1) if _firm(p) is not None]
    if role == "learned" and comparable:
        for d, p in comparable:
            if not p.firm:
                return ALSO_RANDOM, diff, ("not further", d, p)
        beyond, bound = beyond_draws(outcome, controls, reference=reference)
        if not beyond:
            return ALSO_RANDOM, diff, _spread(controls, reference, outcome.strength_point, bound)
        return "holds", diff, None
    undecided = [c.verdict for c in controls if c.verdict in ("holds", INCONCLUSIVE)]
    if undecided:
        return ALSO_RANDOM, diff, ("control too", undecided[0])
    return "holds", diff, None
