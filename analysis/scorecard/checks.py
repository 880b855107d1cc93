"""One check of a claim on one model's tables: its point verdict, how firm it is over the replicate
tables (a bootstrap, or the trainings' seeds: a t interval), its bootstrap p and its strength per
replicate (how far on the claim's side: the paired control reads it). The rules are stated in
:mod:`analysis.scorecard.evaluate`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analysis.scorecard.few_units import few_unit_p, required_share, too_few, units_of
from analysis.scorecard.values import (
    OPS,
    TIE,
    NoRows,
    distinct_texts,
    fmt,
    interval_text,
    replicate_values,
    select,
    specs_of,
    value,
)

AGREEMENT = 0.975  # share of replicates that must agree with a verdict (one side of a 95% interval)
LEVEL = 0.05  # two-sided: each direction of a firm verdict at 2.5%
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}  # t(0.975, df)


def basic(reps: pd.Series, point) -> pd.Series:
    """The replicates reflected about the point value (2 x point - replicate): their percentiles are
    the basic bootstrap interval, which removes a bias the replicates show about the point (an
    in-sample maximum's replicates lean upwards by the bias of the max: the reflection moves the
    interval down by as much)."""
    return 2 * float(point) - pd.to_numeric(reps, errors="coerce")


@dataclass
class Judgement:
    """One check on one model: the point verdict, our value, and how firm it is over the replicates."""

    ok: bool
    text: str
    firm: bool | None = None  # None: no replicates; else whether >= AGREEMENT of them agree with ``ok``
    interval: str = ""
    replicates: int = 0
    basis: str = "point only"
    p_value: float = np.nan
    strength: pd.Series | None = None
    strength_point: float = np.nan
    why: str = ""  # why a verdict is not firm beyond its interval (undefined replicates, ties)
    agreement: float = np.nan  # share of the replicates agreeing (a failing order: its best failing pair)
    divisor: int = 1  # the Bonferroni divisor of that share (a failing order: its failing pairs)
    levels: dict = field(default_factory=dict)  # level -> its Judgement (a check with ``per``)
    units: float = np.inf  # independent units (clusters) the replicates drew; inf: many
    # the numbers ``text`` shows, as numbers: (level of per or None, position 1, 2, ..., value)
    values: list = field(default_factory=list)

    def firm_at(self, level: float = AGREEMENT) -> bool | None:
        """Whether the verdict is firm when ``level`` of the replicates must agree (seeds: their t
        interval), corrected for few resampled clusters (:func:`required_share`)."""
        if self.basis != "bootstrap":  # no replicates (None), or seeds: their t interval decided it
            return self.firm
        return not self.why and bool(self.agreement >= required_share((1 - level) / self.divisor, self.units))


def _p_value(outcomes: pd.Series, ok: bool, units: float = np.inf) -> float:
    """Bootstrap p of the point verdict ``ok``: (1 + replicates against it) / (1 + replicates),
    corrected for few clusters (:func:`few_unit_p`)."""
    known = outcomes.dropna()
    return few_unit_p(float((1 + (known != ok).sum()) / (1 + len(known))), units) if len(known) else np.nan


def _interval(reps: pd.Series, units: float) -> str:
    """The replicates' 95% interval, widened for few clusters (the percentiles :func:`required_share` reads)."""
    share = required_share(1 - AGREEMENT, units)
    if not np.isfinite(share):
        return f"none ({units:.0f} cluster resampled)"
    return interval_text(reps, share)


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
    half = T_975.get(k - 1, 1.96) * float(x.std(ddof=1)) / np.sqrt(k)
    return float(x.mean()), float(x.mean()) - half, float(x.mean()) + half


def _seeds(boots, spec) -> int:
    """k when ``spec``'s replicates are k trainings' own tables (no bootstrap), else 0."""
    boot = (boots or {}).get(spec["table"])
    return int(boot.attrs.get("seeds", 0)) if boot is not None else 0


def check_once(check: dict, tables, extra_where=None, boots=None) -> Judgement:
    """One check (a threshold or an order), at one level of ``per`` (``extra_where``)."""
    if "value" in check:
        return _check_threshold(check, tables, extra_where, boots or {})
    return _check_order(check, tables, extra_where, boots or {})


def _check_threshold(check: dict, tables, extra_where, boots) -> Judgement:
    """One value against its threshold."""
    op, threshold = check["op"], check["threshold"]
    v = value(check["value"], tables, extra_where)
    reps = replicate_values(check["value"], boots, extra_where)
    k = _seeds(boots, check["value"])
    if k:  # k seeds, no bootstrap: the seeds' mean and its t interval; never firm by agreement alone
        mean, lo, hi = _seed_interval(reps)
        ok = _holds(mean, op, threshold)
        firm = bool(np.isfinite(lo)) and (_holds(lo, op, threshold) == _holds(hi, op, threshold) == ok)
        text = f"{fmt(mean)} (mean of {k} seeds)"
        strength = reps.map(lambda r: _strength(r, op, threshold))
        interval = f"[{fmt(lo)}, {fmt(hi)}] (t, {k} seeds)"
        return Judgement(
            ok, text, firm, interval, k, "seeds", np.nan, strength, _strength(mean, op, threshold),
            values=[(None, 1, mean)],
        )  # fmt: skip
    ok = _holds(v, op, threshold)
    text = fmt(v)
    point_strength = _strength(v, op, threshold)
    if reps is None:
        return Judgement(ok, text, strength_point=point_strength, values=[(None, 1, v)])
    if check.get("interval") == "basic" and not isinstance(v, str):  # a categorical value has no reflection
        reps = basic(reps, v)
    outcomes = reps.map(lambda r: _holds(r, op, threshold) if pd.notna(r) else np.nan)
    strength = reps.map(lambda r: _strength(r, op, threshold) if pd.notna(r) else np.nan)
    undefined = float(reps.isna().mean())
    why = f"no value on {undefined:.0%} of the resamples" if undefined > 1 - AGREEMENT else ""
    if isinstance(v, str) and v.startswith(TIE):
        why = "a tie: no single level is the largest"
    units = units_of(boots, check["value"])
    why = why or too_few(units)
    judged = Judgement(
        ok, text, None, _interval(reps, units), len(reps), "bootstrap", _p_value(outcomes, ok, units), strength,
        point_strength, why, _share(outcomes, ok), units=units, values=[(None, 1, v)],
    )  # fmt: skip
    judged.firm = judged.firm_at()
    return judged


def _check_order(check: dict, tables, extra_where, boots) -> Judgement:
    """Values in strictly decreasing order (each by more than the margin)."""
    specs = check["greater"]
    values = [value(spec, tables, extra_where) for spec in specs]
    margin = check.get("margin", 0.0)
    pairs = list(zip(values, values[1:]))
    ok = all(a > b + margin for a, b in pairs)
    point_strength = min(float(a) - float(b) - margin for a, b in pairs)
    text = (" > " if ok else " vs ").join(distinct_texts(values))
    shown = [(None, i, x) for i, x in enumerate(values, start=1)]
    reps = [replicate_values(spec, boots, extra_where) for spec in specs]
    if any(r is None for r in reps):
        return Judgement(ok, text, strength_point=point_strength, values=shown)
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
        firm = all(np.isfinite(lo) for lo, _ in bounds) and (
            all(lo > 0 for lo, _ in bounds) if ok else any(hi < 0 for _, hi in bounds)
        )
        seed_means = [_seed_interval(r)[0] for r in reps]
        text = (" > " if ok else " vs ").join(distinct_texts(seed_means)) + f" (means of {k} seeds)"
        interval = "; ".join(f"[{fmt(lo)}, {fmt(hi)}]" for lo, hi in bounds) + f" (t, differences, {k} seeds)"
        return Judgement(
            ok, text, firm, interval, k, "seeds", np.nan, strength, min(means),
            values=[(None, i, x) for i, x in enumerate(seed_means, start=1)],
        )  # fmt: skip
    # an order holds firmly when every adjacent difference is firmly above the margin, and does not
    # hold firmly when some difference that fails is firmly below it (Bonferroni over the pairs)
    outcome = [d.map(lambda x: x > 0 if pd.notna(x) else np.nan) for d in diffs]
    if ok:
        agreement, divisor = min(_share(o, True) for o in outcome), 1
    else:
        failing = [o for (a, b), o in zip(pairs, outcome) if not a > b + margin]
        agreement, divisor = max(_share(o, False) for o in failing), len(failing)
    all_ok = strength.map(lambda x: x > 0 if pd.notna(x) else np.nan)
    units = min(units_of(boots, spec) for spec in specs)
    interval = "; ".join(_interval(r, units) for r in reps)
    judged = Judgement(
        ok, text, None, interval, len(reps[0]), "bootstrap", _p_value(all_ok, ok, units), strength, point_strength,
        too_few(units), agreement, divisor, units=units, values=shown,
    )  # fmt: skip
    judged.firm = judged.firm_at()
    return judged


def run_check(check: dict, tables, skip=frozenset(), boots=None, mark: dict | None = None) -> Judgement:
    """The check's judgement; with ``per``, every level (but those in ``skip``) must hold: it holds
    firmly when every level does, and does not hold firmly when some level firmly does not
    (Bonferroni over the levels: a "does not hold" is a union over them). ``mark``: level -> a note
    printed beside its value (e.g. a task whose model did not learn it)."""
    if not check.get("per"):
        return check_once(check, tables, boots=boots)
    levels = [level for level in levels_of(check, tables) if level not in skip]
    if not levels:
        raise NoRows(f"no level of {check['per']!r}")
    results = [(level, check_once(check, tables, {check["per"]: level}, boots)) for level in levels]
    ok = all(j.ok for _, j in results)
    note = lambda lvl: f" ({mark[lvl]})" if mark and lvl in mark else ""  # noqa: E731
    text = "; ".join(f"{lvl}: {j.text}{note(lvl)}" for lvl, j in results)
    strength_point = min(j.strength_point for _, j in results)
    shown = [(lvl, pos, x) for lvl, j in results for _, pos, x in j.values]
    if any(j.firm is None for _, j in results):
        return Judgement(ok, text, strength_point=strength_point, levels=dict(results), values=shown)
    if ok:
        firm = all(j.firm for _, j in results)
    else:
        strict = 1 - (1 - AGREEMENT) / len(results)
        firm = any(not j.ok and j.firm_at(strict) for _, j in results)
    interval = "; ".join(f"{lvl}: {j.interval}" for lvl, j in results)
    strength = pd.concat([j.strength for _, j in results], axis=1).min(axis=1, skipna=False)
    p = max(j.p_value for _, j in results) if ok else min(j.p_value for _, j in results if not j.ok) * len(results)
    why = "; ".join(f"{lvl}: {j.why}" for lvl, j in results if j.why)
    basis = results[0][1].basis
    return Judgement(
        ok, text, firm, interval, results[0][1].replicates, basis, min(p, 1.0), strength, strength_point, why,
        levels=dict(results), units=min(j.units for _, j in results), values=shown,
    )  # fmt: skip
