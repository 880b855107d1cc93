"""One check of a claim on one model's tables: its point verdict, how firm it is over the replicate
tables (a bootstrap, or the trainings' seeds: a t interval), its bootstrap p and its strength per
replicate (how far on the claim's side: the paired control reads it). A judgement carries numbers
only (its values, their interval bounds, units, seeds, p): :mod:`analysis.scorecard.wording` puts
them into words, :mod:`analysis.scorecard.terms` into the terms table. The rules are stated in
:mod:`analysis.scorecard.evaluate`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from analysis.scorecard.few_units import MIN_CLUSTERS, required_share, units_of
from analysis.scorecard.pvalues import combined, direction_p, t_p
from analysis.scorecard.run import Run
from analysis.scorecard.values import OPS, TIE, NoRows, interval_of, replicate_values, select, specs_of, value

AGREEMENT = 0.975  # share of replicates that must agree with a verdict (one side of a 95% interval)
LEVEL = 0.05  # two-sided: each direction of a firm verdict at 2.5%


def basic(reps: pd.Series, point) -> pd.Series:
    """The replicates reflected about the point value (2 x point - replicate): their percentiles are
    the basic bootstrap interval, which removes a bias the replicates show about the point (an
    in-sample maximum's replicates lean upwards by the bias of the max: the reflection moves the
    interval down by as much)."""
    return 2 * float(point) - pd.to_numeric(reps, errors="coerce")


@dataclass(frozen=True)
class Modal:
    """A categorical value's replicates: their most common value (None: no replicate) and its share."""

    value: object
    share: float


@dataclass
class Judgement:
    """One check on one model: the point verdict, the values, and how firm it is over the replicates."""

    ok: bool
    # the values it compares: (level of per or None, position 1, 2, ..., value)
    values: list = field(default_factory=list)
    order: bool = False  # values in decreasing order (``greater``), else one value against ``threshold``
    threshold: object = None  # the comparison: a threshold, or an order's margin
    firm: bool | None = None  # None: no replicates; else whether >= AGREEMENT of them agree with ``ok``
    # per value: (low, high), Modal or None (too few units for an interval); an order over seeds: per difference
    bounds: list = field(default_factory=list)
    replicates: int = 0
    basis: str = "point only"
    seeds: int = 0  # k: the values are the means of k trainings (basis seeds)
    # one-sided p of each direction (holds / does not hold), few clusters corrected; an order or a
    # per-level check: over its pairs or levels (the largest when all must hold, Bonferroni when one
    # failing is enough)
    p_holds: float = np.nan
    p_fails: float = np.nan
    strength: pd.Series | None = None
    strength_point: float = np.nan
    why: tuple = ()  # why a verdict is not firm beyond its interval: ("undefined", share) | ("tie",) | ("few", units, floor)
    agreement: float = np.nan  # share of the replicates agreeing (a failing order: its best failing pair)
    divisor: int = 1  # the Bonferroni divisor of that share (a failing order: its failing pairs)
    levels: dict = field(default_factory=dict)  # level -> its Judgement (a check with ``per``)
    marks: dict = field(default_factory=dict)  # level -> a note beside its value (e.g. a task not learnt)
    units: float = np.inf  # independent units (clusters) the replicates drew; inf: many

    @property
    def p_value(self) -> float:
        """The two-sided p: twice the smaller one-sided p (of holds, of does not hold), at most 1."""
        p = min(self.p_holds, self.p_fails)
        return float(min(1.0, 2 * p)) if np.isfinite(p) else np.nan

    def firm_at(self, level: float = AGREEMENT) -> bool | None:
        """Whether the verdict is firm when ``level`` of the replicates must agree (seeds: their t
        interval), corrected for few resampled clusters (:func:`required_share`)."""
        if self.basis != "bootstrap":  # no replicates (None), or seeds: their t interval decided it
            return self.firm
        return not self.why and bool(self.agreement >= required_share((1 - level) / self.divisor, self.units))


def _bounds(reps: pd.Series, units: float):
    """The replicates' 95% interval, widened for few clusters (the percentiles :func:`required_share`
    reads): (low, high); a categorical value's modal share; None where no interval is possible."""
    share = required_share(1 - AGREEMENT, units)
    if not np.isfinite(share):
        return None
    if pd.to_numeric(reps, errors="coerce").notna().sum() == 0:  # categorical values (==): the modal share
        top = reps.value_counts(normalize=True)
        return Modal(top.index[0], float(top.iloc[0])) if len(top) else Modal(None, np.nan)
    return interval_of(reps, share)


def _too_few(units: float) -> tuple:
    """Why a table resampled by ``units`` clusters gives no firm verdict (() where it can)."""
    return ("few", units, MIN_CLUSTERS) if np.isfinite(units) and units < MIN_CLUSTERS else ()


def _share(outcomes: pd.Series, ok: bool) -> float:
    """The share of the replicates that agree with ``ok``: a replicate with no value (NaN) counts
    against it, so a value undefined on more than 2.5% of resamples is never firm."""
    return float((outcomes == ok).sum() / len(outcomes)) if len(outcomes) else np.nan


def levels_of(check: dict, tables) -> list:
    spec = specs_of(check)[0]
    df = select(tables[spec["table"]], spec.get("where"))
    return list(dict.fromkeys(df[check["per"]].tolist()))


def _holds(v, op: str, threshold) -> bool:
    """``v op threshold``; a tie (an undecided argmax, TIE) never holds."""
    if isinstance(v, str) and v.startswith(TIE):
        return False
    return bool(OPS[op](v, threshold))


def _strength(v, op: str, threshold) -> float:
    """How far ``v`` is on the claim's side of ``threshold`` (> 0 where ``v op threshold`` holds
    strictly); NaN for a categorical value."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return np.nan
    return v - threshold if op in (">", ">=") else threshold - v if op in ("<", "<=") else np.nan


def _seed_interval(reps: pd.Series) -> tuple[float, float, float]:
    """(mean, low, high): the t interval over k seeds' values (k - 1 degrees of freedom)."""
    x = pd.to_numeric(reps, errors="coerce").dropna()
    k = len(x)
    if k < 2:
        return (float(x.mean()) if k else np.nan), np.nan, np.nan
    half = float(stats.t.ppf(AGREEMENT, k - 1)) * float(x.std(ddof=1)) / np.sqrt(k)
    return float(x.mean()), float(x.mean()) - half, float(x.mean()) + half


def _seeds(boots, spec) -> int:
    """k when ``spec``'s replicates are k trainings' own tables (no bootstrap), else 0."""
    boot = (boots or {}).get(spec["table"])
    return int(boot.attrs.get("seeds", 0)) if boot is not None else 0


def check_once(check: dict, run: Run, extra_where=None) -> Judgement:
    """One check (a threshold or an order), at one level of ``per`` (``extra_where``)."""
    if "value" in check:
        return _check_threshold(check, run, extra_where)
    return _check_order(check, run, extra_where)


def _check_threshold(check: dict, run: Run, extra_where) -> Judgement:
    """One value against its threshold."""
    op, threshold, boots = check["op"], check["threshold"], run.boots
    v = value(check["value"], run.tables, extra_where)
    reps = replicate_values(check["value"], boots, extra_where)
    k = _seeds(boots, check["value"])
    if k:  # k seeds, no bootstrap: the seeds' mean and its t interval; never firm by agreement alone
        mean, lo, hi = _seed_interval(reps)
        ok = _holds(mean, op, threshold)
        firm = bool(np.isfinite(lo)) and (_holds(lo, op, threshold) == _holds(hi, op, threshold) == ok)
        p_holds, p_fails = t_p(reps, op, threshold)
        return Judgement(
            ok, [(None, 1, mean)], False, threshold, firm, [(lo, hi)], k, "seeds", k, p_holds, p_fails,
            strength=reps.map(lambda r: _strength(r, op, threshold)), strength_point=_strength(mean, op, threshold),
        )  # fmt: skip
    ok = _holds(v, op, threshold)
    point_strength = _strength(v, op, threshold)
    if reps is None:
        return Judgement(ok, [(None, 1, v)], threshold=threshold, strength_point=point_strength)
    if check.get("interval") == "basic" and not isinstance(v, str):  # a categorical value has no reflection
        reps = basic(reps, v)
    outcomes = reps.map(lambda r: _holds(r, op, threshold) if pd.notna(r) else np.nan)
    strength = reps.map(lambda r: _strength(r, op, threshold) if pd.notna(r) else np.nan)
    undefined = float(reps.isna().mean())
    why = ("undefined", undefined) if undefined > 1 - AGREEMENT else ()
    if isinstance(v, str) and v.startswith(TIE):
        why = ("tie",)
    units = units_of(boots, check["value"])
    why = why or _too_few(units)
    judged = Judgement(
        ok, [(None, 1, v)], False, threshold, None, [_bounds(reps, units)], len(reps), "bootstrap", 0,
        *direction_p(outcomes, units), strength=strength, strength_point=point_strength, why=why,
        agreement=_share(outcomes, ok), units=units,
    )  # fmt: skip
    judged.firm = judged.firm_at()
    return judged


def _check_order(check: dict, run: Run, extra_where) -> Judgement:
    """Values in strictly decreasing order (each by more than the margin)."""
    specs, boots = check["greater"], run.boots
    values = [value(spec, run.tables, extra_where) for spec in specs]
    margin = check.get("margin", 0.0)
    pairs = list(zip(values, values[1:]))
    ok = all(a > b + margin for a, b in pairs)
    point_strength = min(float(a) - float(b) - margin for a, b in pairs)
    shown = [(None, i, x) for i, x in enumerate(values, start=1)]
    reps = [replicate_values(spec, boots, extra_where) for spec in specs]
    if any(r is None for r in reps):
        return Judgement(ok, shown, True, margin, strength_point=point_strength)
    diffs = [
        pd.to_numeric(ra, errors="coerce") - pd.to_numeric(rb, errors="coerce") - margin
        for ra, rb in zip(reps, reps[1:])
    ]
    strength = pd.concat(diffs, axis=1).min(axis=1, skipna=False)
    k = _seeds(boots, specs[0])
    if k:  # k seeds: each adjacent difference's t interval must lie on one side of the margin
        bounds = [_seed_interval(d)[1:] for d in diffs]
        means = [_seed_interval(d)[0] for d in diffs]
        ok = all(m > 0 for m in means)
        seed_means = [(None, i, _seed_interval(r)[0]) for i, r in enumerate(reps, start=1)]
        failing = sum(m <= 0 for m in means) or len(means)
        p_holds, p_fails = combined([t_p(d, ">", 0.0) for d in diffs], failing)
        # holds: every difference's t interval above 0; does not hold: a failing one below 0 at the
        # Bonferroni level over the failing pairs (its t test's p x their number <= 2.5%)
        firm = all(np.isfinite(lo) for lo, _ in bounds) and (
            all(lo > 0 for lo, _ in bounds) if ok else p_fails <= 1 - AGREEMENT
        )
        return Judgement(
            ok, seed_means, True, margin, firm, bounds, k, "seeds", k, p_holds, p_fails, strength, min(means)
        )
    # an order holds firmly when every adjacent difference is firmly above the margin, and does not
    # hold firmly when some difference that fails is firmly below it (Bonferroni over the pairs)
    outcome = [d.map(lambda x: x > 0 if pd.notna(x) else np.nan) for d in diffs]
    if ok:
        agreement, divisor = min(_share(o, True) for o in outcome), 1
    else:
        failing = [o for (a, b), o in zip(pairs, outcome) if not a > b + margin]
        agreement, divisor = max(_share(o, False) for o in failing), len(failing)
    units = min(units_of(boots, spec) for spec in specs)
    # the p of does not hold is Bonferroni over the failing pairs, as the firm verdict (over every pair
    # where the order holds at the point: the direction the data do not take)
    p_holds, p_fails = combined([direction_p(o, units) for o in outcome], divisor if not ok else len(outcome))
    judged = Judgement(
        ok, shown, True, margin, None, [_bounds(r, units) for r in reps], len(reps[0]), "bootstrap", 0,
        p_holds, p_fails, strength=strength, strength_point=point_strength, why=_too_few(units),
        agreement=agreement, divisor=divisor, units=units,
    )  # fmt: skip
    judged.firm = judged.firm_at()
    return judged


def run_check(check: dict, run: Run, skip=frozenset(), mark: dict | None = None) -> Judgement:
    """The check's judgement; with ``per``, every level (but those in ``skip``) must hold: it holds
    firmly when every level does, and does not hold firmly when some level firmly does not
    (Bonferroni over the levels: a "does not hold" is a union over them). ``mark``: level -> a note
    printed beside its value (e.g. a task whose model did not learn it)."""
    if not check.get("per"):
        return check_once(check, run)
    levels = [level for level in levels_of(check, run.tables) if level not in skip]
    if not levels:
        raise NoRows(f"no level of {check['per']!r}")
    results = [(level, check_once(check, run, {check["per"]: level})) for level in levels]
    ok = all(j.ok for _, j in results)
    marks = {lvl: mark[lvl] for lvl, _ in results if mark and lvl in mark}
    strength_point = min(j.strength_point for _, j in results)
    shown = [(lvl, pos, x) for lvl, j in results for _, pos, x in j.values]
    first = results[0][1]
    judged = Judgement(
        ok, shown, first.order, first.threshold, strength_point=strength_point, levels=dict(results), marks=marks
    )
    if any(j.firm is None for _, j in results):
        return judged
    if ok:
        judged.firm = all(j.firm for _, j in results)
    else:
        strict = 1 - (1 - AGREEMENT) / len(results)
        judged.firm = any(not j.ok and j.firm_at(strict) for _, j in results)
    judged.replicates, judged.basis, judged.seeds = first.replicates, first.basis, first.seeds
    # holds at every level: the largest p of holds; fails at one: Bonferroni over the levels
    judged.p_holds, judged.p_fails = combined([(j.p_holds, j.p_fails) for _, j in results], len(results))
    judged.strength = pd.concat([j.strength for _, j in results], axis=1).min(axis=1, skipna=False)
    judged.units = min(j.units for _, j in results)
    return judged
