"""One check of a claim on one model's tables: its point verdict, how firm it is over the replicate
tables (a bootstrap; over k training seeds the seeds' mean with a t interval on the between-seed plus
bootstrap variance, :mod:`analysis.scorecard.seeds`; one seed widened by the seed reference where it
has one), its p and its strength per replicate (how far on the claim's side: the paired control reads it). A judgement carries numbers
only (its values, their interval bounds, units, seeds, p): :mod:`analysis.scorecard.wording` puts
them into words, :mod:`analysis.scorecard.terms` into the terms table. The rules are stated in
:mod:`analysis.scorecard.evaluate`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analysis.scorecard.aso import almost_stochastic_order
from analysis.scorecard.calibrated_tails import apply_tails
from analysis.scorecard.few_units import bounds_of, required_share, too_few, units_of
from analysis.scorecard.pvalues import combined, direction_p
from analysis.scorecard.run import Run
from analysis.scorecard.seeds import modal, numeric, per_seed, seed_differences, seed_mean, seed_runs
from analysis.scorecard.t_reading import read_on_t, widen_by_reference
from analysis.scorecard.values import (
    TIE,
    NoRows,
    as_interval,
    holds,
    replicate_values,
    select,
    side,
    specs_of,
    strength_of,
    value,
)

AGREEMENT = 0.975  # share of replicates that must agree with a verdict (one side of a 95% interval)
LEVEL = 0.05  # two-sided: each direction of a firm verdict at 2.5%


@dataclass
class Judgement:
    """One check on one model: the point verdict, the values, and how firm it is over the replicates."""

    ok: bool
    # the values it compares: (level of per or None, position 1, 2, ..., value)
    values: list = field(default_factory=list)
    order: bool = False  # values in decreasing order (``greater``), else one value against ``threshold``
    threshold: object = None  # the comparison: a threshold, or an order's margin
    firm: bool | None = None  # None: no replicates; else whether its interval decides (firm_at)
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
    # why a verdict is not firm beyond its interval: ("undefined", share) | ("tie",) | ("few", units, floor) | ("categorical", k)
    why: tuple = ()
    agreement: float = np.nan  # share of the replicates agreeing (a failing order: its best failing pair)
    divisor: int = 1  # the Bonferroni divisor of that share (a failing order: its failing pairs)
    levels: dict = field(default_factory=dict)  # level -> its Judgement (a check with ``per``)
    marks: dict = field(default_factory=dict)  # level -> a note beside its value (e.g. a task not learnt)
    units: float = np.inf  # independent units (clusters) the replicates drew; inf: many
    # per quantity (the value; an order's differences): its SeedMean over k seeds, or one seed's widened
    # by the seed reference (None: a difference the reference has no SD for)
    estimates: list = field(default_factory=list)
    seed_p: tuple | None = None  # (p of holds, p of does not hold) of the interval widened by the seed reference
    # an order over k >= 2 seeds: per adjacent pair, Dror et al.'s eps_min of the one over the next (reported, not decisive)
    aso: list = field(default_factory=list)
    # (holds, does not hold): the claim's calibrated tails / 0.025 (analysis.scorecard.calibrated_tails)
    tail_scale: tuple = (1.0, 1.0)
    on_t: bool = False  # interval t: firm where its t's p decides (analysis.scorecard.t_reading)

    @property
    def p_value(self) -> float:
        """The two-sided p: twice the smaller one-sided p (of holds, of does not hold), at most 1."""
        p = min(self.p_holds, self.p_fails)
        return float(min(1.0, 2 * p)) if np.isfinite(p) else np.nan

    def firm_at(self, level: float = AGREEMENT) -> bool | None:
        """Whether the verdict is firm when ``level`` of the replicates must agree, corrected for few
        resampled clusters (:func:`required_share`), and its interval widened by the seed reference
        decides at ``level`` too; over seeds, whether their t interval at ``level`` decides (the p
        of the verdict's side, Bonferroni over an order's failing pairs, within 1 - ``level``); the
        level's tail scaled by the claim's calibrated tail (its p's are scaled already)."""
        side = 0 if self.ok else 1
        if self.basis not in ("seeds", "bootstrap"):  # no replicates (None)
            return self.firm
        if self.basis == "seeds" or self.on_t:
            firm = not self.why and bool((self.p_holds, self.p_fails)[side] <= 1 - level)
        else:
            tail = (1 - level) * self.tail_scale[side] / self.divisor
            firm = not self.why and bool(self.agreement >= required_share(tail, self.units))
        return firm and (self.seed_p is None or bool(self.seed_p[side] <= 1 - level))


def _share(outcomes: pd.Series, ok: bool) -> float:
    """The share of the replicates that agree with ``ok``: a replicate with no value (NaN) counts
    against it, so a value undefined on more than 2.5% of resamples is never firm."""
    return float((outcomes == ok).sum() / len(outcomes)) if len(outcomes) else np.nan


def levels_of(check: dict, tables) -> list:
    spec = specs_of(check)[0]
    df = select(tables[spec["table"]], spec.get("where"))
    return list(dict.fromkeys(df[check["per"]].tolist()))


def check_once(check: dict, run: Run, extra_where=None, reference: dict | None = None) -> Judgement:
    """One check (a threshold or an order), at one level of ``per`` (``extra_where``); ``reference``:
    the seed reference's (between-seed SD, seeds) of its quantities at that level (``value``,
    ``difference1``, ...), read where the check rests on one seed."""
    runs = seed_runs(run, specs_of(check))
    if len(runs) > 1:  # k training seeds: each judged alone, the quantity read as their mean
        return _over_seeds(check, runs, extra_where)
    if "value" in check:
        return _check_threshold(check, run, extra_where, reference or {})
    return _check_order(check, run, extra_where, reference or {})


def _over_seeds(check: dict, runs: list[Run], extra_where) -> Judgement:
    """k training seeds, each judged alone: the value (an order: each adjacent difference) read as its
    mean over the seeds, with the t interval on the between-seed plus bootstrap variance and its p
    (:func:`analysis.scorecard.seeds.seed_mean`); firm where that interval decides (an order: Bonferroni
    over its failing pairs), never by k of k seeds agreeing. A categorical value has no mean: never firm."""
    specs, k, order = specs_of(check), len(runs), "greater" in check
    op, threshold = (">", 0.0) if order else (check["op"], check["threshold"])
    units = min(units_of(r.boots, spec) for r in runs for spec in specs)
    seeds = [per_seed(spec, runs, extra_where) for spec in specs]  # per value: (points, replicates) of each seed
    if not all(numeric(points) for points, _ in seeds):
        shown = modal(seeds[0][0])
        ok = not order and holds(shown, op, threshold)
        return Judgement(
            ok, [(None, 1, shown)], order, threshold, False, [], k, "seeds", k, why=("categorical", k),
            strength=pd.Series(np.nan, index=range(k)),  # no side to be on
        )  # fmt: skip
    if check.get("interval") == "basic":  # each seed's replicates reflected about its own value
        seeds = [
            (points, [None if r is None else as_interval("basic", r, p) for p, r in zip(points, reps)])
            for points, reps in seeds
        ]
    quantities = seed_differences(seeds, check.get("margin", 0.0)) if order else seeds
    estimates = [seed_mean(points, reps, units) for points, reps in quantities]
    gaps = [strength_of(e.mean, op, threshold) for e in estimates]  # how far on the claim's side
    ok = all(g > 0 for g in gaps) if order else holds(estimates[0].mean, op, threshold)
    # an order holds where every difference does; it fails where one does (Bonferroni over those failing)
    p_holds, p_fails = combined(
        [e.sided_p(g, side(op)) for e, g in zip(estimates, gaps)], sum(g <= 0 for g in gaps) or len(gaps)
    )
    if not order and not side(op):  # ==: no side, no p
        p_holds, p_fails = np.nan, np.nan
    shown = [(None, i, float(np.mean(points))) for i, (points, _) in enumerate(seeds, start=1)]
    reps = [e.reps if e.reps is not None else pd.Series(e.points, dtype=float) for e in estimates]
    strength = pd.concat([r.reset_index(drop=True).map(lambda x: strength_of(x, op, threshold)) for r in reps], axis=1)
    undefined = max(e.undefined for e in estimates)
    judged = Judgement(
        ok, shown, order, check.get("margin", 0.0) if order else threshold, None, [e.bounds() for e in estimates],
        len(reps[0]), "seeds", k, p_holds, p_fails, strength=strength.min(axis=1, skipna=False),
        strength_point=min(gaps), units=units, estimates=estimates,
        why=("undefined", undefined) if undefined > 1 - AGREEMENT else too_few(units),
    )  # fmt: skip
    judged.firm = judged.firm_at()
    if order:  # each model over the next across seeds (almost stochastic order), margin included
        margin = check.get("margin", 0.0)
        judged.aso = [
            almost_stochastic_order(np.subtract(pa, margin), pb) for (pa, _), (pb, _) in zip(seeds, seeds[1:])
        ]
    return judged


def _check_threshold(check: dict, run: Run, extra_where, reference: dict) -> Judgement:
    """One value against its threshold."""
    op, threshold, boots = check["op"], check["threshold"], run.boots
    v = value(check["value"], run.tables, extra_where)
    reps = replicate_values(check["value"], boots, extra_where)
    ok = holds(v, op, threshold)
    point_strength = strength_of(v, op, threshold)
    if reps is None:
        return Judgement(ok, [(None, 1, v)], threshold=threshold, strength_point=point_strength)
    reps = as_interval(check.get("interval"), reps, v)
    outcomes = reps.map(lambda r: holds(r, op, threshold) if pd.notna(r) else np.nan)
    strength = reps.map(lambda r: strength_of(r, op, threshold) if pd.notna(r) else np.nan)
    undefined = float(reps.isna().mean())
    why = ("undefined", undefined) if undefined > 1 - AGREEMENT else ()
    if isinstance(v, str) and v.startswith(TIE):
        why = ("tie",)
    units = units_of(boots, check["value"])
    why = why or too_few(units)
    judged = Judgement(
        ok, [(None, 1, v)], False, threshold, None, [bounds_of(reps, units)], len(reps), "bootstrap", 0,
        *direction_p(outcomes, units), strength=strength, strength_point=point_strength, why=why,
        agreement=_share(outcomes, ok), units=units,
    )  # fmt: skip
    if side(op) and not isinstance(v, str):
        quantity = ("value", float(v), reps, side(op) * (float(v) - threshold), side(op))
        if check.get("interval") == "t":
            read_on_t(judged, [quantity], 1)
        widen_by_reference(judged, [quantity], reference, [(judged.p_holds, judged.p_fails)], 1)
    judged.firm = judged.firm_at()
    return judged


def _check_order(check: dict, run: Run, extra_where, reference: dict) -> Judgement:
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
    if check.get("interval") == "bc":  # each difference's replicates bias-corrected about its point
        diffs = [as_interval("bc", d, float(a) - float(b) - margin) for d, (a, b) in zip(diffs, pairs)]
    strength = pd.concat(diffs, axis=1).min(axis=1, skipna=False)
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
    part_p = [direction_p(o, units) for o in outcome]
    failing = divisor if not ok else len(outcome)
    p_holds, p_fails = combined(part_p, failing)
    judged = Judgement(
        ok, shown, True, margin, None, [bounds_of(r, units) for r in reps], len(reps[0]), "bootstrap", 0,
        p_holds, p_fails, strength=strength, strength_point=point_strength, why=too_few(units),
        agreement=agreement, divisor=divisor, units=units,
    )  # fmt: skip
    points = [float(a) - float(b) - margin for a, b in pairs]
    quantities = [(f"difference{i}", x, d, x, 1) for i, (x, d) in enumerate(zip(points, diffs), start=1)]
    if check.get("interval") == "t":
        part_p = read_on_t(judged, quantities, failing)
        undefined = max(float(d.isna().mean()) for d in diffs)
        judged.why = judged.why or (("undefined", undefined) if undefined > 1 - AGREEMENT else ())
    widen_by_reference(judged, quantities, reference, part_p, failing)
    judged.firm = judged.firm_at()
    return judged


def run_check(
    check: dict, run: Run, skip=frozenset(), mark: dict | None = None, reference: dict | None = None, tails=(1.0, 1.0)
) -> Judgement:
    """The check's judgement; with ``per``, every level (but those in ``skip``) must hold: it holds
    firmly when every level does, and does not hold firmly when some level firmly does not
    (Bonferroni over the levels: a "does not hold" is a union over them). ``mark``: level -> a note
    printed beside its value (e.g. a task whose model did not learn it). ``reference``: the claim's
    seed reference, level (text; empty for none) -> quantity -> (between-seed SD, seeds). ``tails``: its
    calibrated tails / 0.025, (holds, does not hold), read at every level (:func:`apply_tails`)."""
    reference = reference or {}
    if not check.get("per"):
        return apply_tails(check_once(check, run, None, reference.get("")), tails)
    levels = [level for level in levels_of(check, run.tables) if level not in skip]
    if not levels:
        raise NoRows(f"no level of {check['per']!r}")
    at = lambda level: reference.get(str(level))  # noqa: E731
    results = [(lvl, apply_tails(check_once(check, run, {check["per"]: lvl}, at(lvl)), tails)) for lvl in levels]
    ok = all(j.ok for _, j in results)
    marks = {lvl: mark[lvl] for lvl, _ in results if mark and lvl in mark}
    strength_point = min(j.strength_point for _, j in results)
    shown = [(lvl, pos, x) for lvl, j in results for _, pos, x in j.values]
    first = results[0][1]
    judged = Judgement(ok, shown, first.order, first.threshold, strength_point=strength_point, levels=dict(results))
    judged.marks, judged.tail_scale = marks, tuple(tails)
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
