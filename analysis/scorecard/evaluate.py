"""Evaluate the machine-checkable claims of config/paper_claims.yaml on one model's tables.

A claim's ``check`` is made of *values*: a value selects rows of one table (``where``), optionally
averages them per group (``group_by``), and reduces one column (or a pandas expression of
columns) with ``agg``. A check compares one value with a threshold (``value``/``op``/``threshold``)
or requires values in strictly decreasing order (``greater: [v1, v2, ...]``), optionally once per
level of a column (``per``: every level must hold). ``query`` (a pandas query) selects rows by
conditions between columns. ``applies_if`` (same form as a check, plus
``reason``) makes a claim ``not applicable`` where its premise fails (e.g. no [SEP] sink).

A tie never holds: a value equal to its threshold does not hold under ``>=`` and ``<=`` either
(``==`` asks for equality, e.g. the most common pattern type), and ``greater`` is strict. A ``where`` that matches no row is an error naming the claim (a misspelt
task or encoder would otherwise drop the claim silently), unless the claim says why its rows may
be absent from a run (``optional: <why>``, e.g. a task the config may leave out): it is then
``not run`` with that reason.

Intervals and a third verdict: where a claim's table has replicates (``<stem>.boot.csv``: the
table recomputed on B seeded resamples of its independent units, column ``replicate``; see
:mod:`analysis.shared.bootstrap`), the claim's value is computed on every replicate too, and its
95% interval is the replicates' 2.5th-97.5th percentiles. The verdict is ``holds`` or ``does not
hold`` only when at least 97.5% of the replicates agree with it, which for a threshold means the
interval lies on one side of it, and for an order ``greater: [a, b, ...]`` that the interval of
every pairwise difference excludes 0 (or the margin); otherwise ``inconclusive``, with the
interval. A claim whose tables have no replicates is judged on its point value, and says so.

A claim read on fine-tuned models names the tasks whose model must have learnt its task
(``learnt_tasks: [RTE]``, or ``learnt_tasks: per`` for every level of its ``per: task``): a task is
learnt when the 95% bootstrap interval of its gain over the majority class (accuracy for an F1 task, MCC for CoLA, else the main metric) lies
above 0 (column ``learnt`` of table finetune_scores; accuracy for an F1 task, MCC for CoLA). A listed task not learnt makes the claim
``not applicable``; with ``per``, the tasks not learnt are left out (named in the reason), and
the claim is ``not applicable`` when none is left.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.scorecard.values import (  # noqa: F401 (value, replicate_values, distinct_texts: this module's interface too)
    OPS,
    TIE,
    NoRows,
    absent_members,
    distinct_texts,
    fmt,
    interval_text,
    replicate_values,
    select,
    value,
    with_depth,
)

# "holds, also at random init": the claim holds, but the model is not firmly further in the claim's
# direction than its random-init control (a claim that reads attention maps, control role
# ``learned``), or the control holds or is undecided too (role ``descriptive``): what a network with
# random weights also shows is no evidence of what the model learnt, so it is not counted as support
ALSO_RANDOM = "holds, also at random init"
INCONCLUSIVE = "inconclusive"
VERDICTS = ("holds", ALSO_RANDOM, INCONCLUSIVE, "does not hold", "not applicable", "not run")
AGREEMENT = 0.975  # share of replicates that must agree with a verdict (one side of a 95% interval)
LEVEL = 0.05  # two-sided: each direction of a firm verdict at 2.5%
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}  # t(0.975, df)


class ClaimError(ValueError):
    """A claim that cannot be evaluated as written (its ``where`` matches no row, and it is not optional)."""


@dataclass
class Outcome:
    verdict: str
    our_value: str = ""
    reason: str = ""
    interval: str = ""  # our value's 95% interval(s), or why there is none
    replicates: int = 0  # replicates the interval came from (0: none)
    basis: str = ""  # what the verdict rests on: bootstrap | seeds | point only (no replicates)
    p_value: float = np.nan  # bootstrap p of the verdict's direction (NaN: none)
    strength: pd.Series | None = None  # per replicate: > 0 where the claim holds (for the paired control)
    strength_point: float = np.nan


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


def _p_value(outcomes: pd.Series, ok: bool) -> float:
    """Bootstrap p of the point verdict ``ok``: (1 + replicates against it) / (1 + replicates)."""
    known = outcomes.dropna()
    return float((1 + (known != ok).sum()) / (1 + len(known))) if len(known) else np.nan


def _agrees(outcomes: pd.Series, ok: bool, level: float | None = None) -> bool:
    """Whether at least ``level`` of the replicates agree with ``ok``: a replicate with no value
    (NaN) counts against it, so a value undefined on more than 2.5% of resamples is never firm."""
    level = AGREEMENT if level is None else level
    return bool(len(outcomes)) and float((outcomes == ok).sum() / len(outcomes)) >= level


def _levels(check: dict, tables) -> list:
    spec = check["value"] if "value" in check else check["greater"][0]
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


def _check_once(check: dict, tables, extra_where=None, boots=None, level: float | None = None) -> Judgement:
    boots = boots or {}
    if "value" in check:
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
            return Judgement(ok, text, firm, interval, k, "seeds", np.nan, strength, _strength(mean, op, threshold))
        ok = _holds(v, op, threshold)
        text = fmt(v)
        point_strength = _strength(v, op, threshold)
        if reps is None:
            return Judgement(ok, text, strength_point=point_strength)
        outcomes = reps.map(lambda r: _holds(r, op, threshold) if pd.notna(r) else np.nan)
        strength = reps.map(lambda r: _strength(r, op, threshold) if pd.notna(r) else np.nan)
        undefined = float(reps.isna().mean())
        why = f"no value on {undefined:.0%} of the resamples" if undefined > 1 - AGREEMENT else ""
        if isinstance(v, str) and v.startswith(TIE):
            why = "a tie: no single level is the largest"
        firm = _agrees(outcomes, ok, level) and not why
        return Judgement(
            ok, text, firm, interval_text(reps), len(reps), "bootstrap", _p_value(outcomes, ok), strength,
            point_strength, why,
        )  # fmt: skip
    specs = check["greater"]
    values = [value(spec, tables, extra_where) for spec in specs]
    margin = check.get("margin", 0.0)
    pairs = list(zip(values, values[1:]))
    ok = all(a > b + margin for a, b in pairs)
    point_strength = min(float(a) - float(b) - margin for a, b in pairs)
    text = (" > " if ok else " vs ").join(distinct_texts(values))
    reps = [replicate_values(spec, boots, extra_where) for spec in specs]
    if any(r is None for r in reps):
        return Judgement(ok, text, strength_point=point_strength)
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
        texts = distinct_texts([_seed_interval(r)[0] for r in reps])
        text = (" > " if ok else " vs ").join(texts) + f" (means of {k} seeds)"
        interval = "; ".join(f"[{fmt(lo)}, {fmt(hi)}]" for lo, hi in bounds) + f" (t, differences, {k} seeds)"
        return Judgement(ok, text, firm, interval, k, "seeds", np.nan, strength, min(means))
    # an order holds firmly when every adjacent difference is firmly above the margin, and does not
    # hold firmly when some difference that fails is firmly below it (Bonferroni over the pairs)
    outcome = [d.map(lambda x: x > 0 if pd.notna(x) else np.nan) for d in diffs]
    if ok:
        firm = all(_agrees(o, True, level) for o in outcome)
    else:
        failing = [o for (a, b), o in zip(pairs, outcome) if not a > b + margin]
        firm = any(_agrees(o, False, 1 - (1 - (level or AGREEMENT)) / len(failing)) for o in failing)
    all_ok = strength.map(lambda x: x > 0 if pd.notna(x) else np.nan)
    interval = "; ".join(interval_text(r) for r in reps)
    return Judgement(
        ok, text, firm, interval, len(reps[0]), "bootstrap", _p_value(all_ok, ok), strength, point_strength
    )


def run_check(check: dict, tables, skip=frozenset(), boots=None, mark: dict | None = None) -> Judgement:
    """The check's judgement; with ``per``, every level (but those in ``skip``) must hold: it holds
    firmly when every level does, and does not hold firmly when some level firmly does not
    (Bonferroni over the levels: a "does not hold" is a union over them). ``mark``: level -> a note
    printed beside its value (e.g. a task whose model did not learn it)."""
    if not check.get("per"):
        return _check_once(check, tables, boots=boots)
    levels = [level for level in _levels(check, tables) if level not in skip]
    if not levels:
        raise NoRows(f"no level of {check['per']!r}")
    results = [(level, _check_once(check, tables, {check["per"]: level}, boots)) for level in levels]
    ok = all(j.ok for _, j in results)
    note = lambda lvl: f" ({mark[lvl]})" if mark and lvl in mark else ""  # noqa: E731
    text = "; ".join(f"{lvl}: {j.text}{note(lvl)}" for lvl, j in results)
    strength_point = min(j.strength_point for _, j in results)
    if any(j.firm is None for _, j in results):
        return Judgement(ok, text, strength_point=strength_point)
    if ok:
        firm = all(j.firm for _, j in results)
    else:
        strict = 1 - (1 - AGREEMENT) / len(results)
        firm = any(
            _check_once(check, tables, {check["per"]: lvl}, boots, level=strict).firm and not j.ok for lvl, j in results
        )
    interval = "; ".join(f"{lvl}: {j.interval}" for lvl, j in results)
    strength = pd.concat([j.strength for _, j in results], axis=1).min(axis=1, skipna=False)
    p = max(j.p_value for _, j in results) if ok else min(j.p_value for _, j in results if not j.ok) * len(results)
    why = "; ".join(f"{lvl}: {j.why}" for lvl, j in results if j.why)
    basis = results[0][1].basis
    return Judgement(
        ok, text, firm, interval, results[0][1].replicates, basis, min(p, 1.0), strength, strength_point, why
    )


def tables_read(claim: dict) -> list[str]:
    """Every table stem a claim reads (its check and its premise)."""
    specs = []
    for check in (claim["check"], claim.get("applies_if") or {}, claim.get("refuted_if") or {}):
        specs += [check["value"]] if "value" in check else list(check.get("greater", []))
    learnt = [LEARNT_TABLE] if claim.get("learnt_tasks") else []
    return list(dict.fromkeys([s["table"] for s in specs] + learnt))


LEARNT_TABLE = "finetune_scores"


def unlearnt_tasks(tables) -> dict[str, str]:
    """Task -> why its fine-tuned model did not learn it: the learnt test's metric (accuracy for an
    F1 task, MCC for CoLA: column learnt_metric, where the table has it), score and gain interval."""
    df = tables[LEARNT_TABLE]
    rows = df[df["main"].astype(bool) & ~df["learnt"].astype(bool)]
    out = {}
    for r in rows.itertuples():
        metric = getattr(r, "learnt_metric", r.metric)
        row = df[(df["task"] == r.task) & (df["metric"] == metric)]
        row = next(row.itertuples()) if len(row) else r
        low = getattr(r, "learnt_gain_ci95_low", r.gain_ci95_low)
        high = getattr(r, "learnt_gain_ci95_high", r.gain_ci95_high)
        out[r.task] = (
            f"{r.task} {metric} {fmt(row.finetuned)} vs majority class {fmt(row.majority)}, "
            f"gain 95% CI [{fmt(low)}, {fmt(high)}]"
        )
    return out


def _not_learnt(claim: dict, tables) -> tuple[Outcome | None, dict[str, str], dict[str, str]]:
    """(an Outcome when the claim is not applicable for want of a learnt task, tasks to leave out,
    tasks to mark): ``learnt_tasks: mark`` judges every task and marks those not learnt."""
    needs = claim.get("learnt_tasks")
    if not needs:
        return None, {}, {}
    unlearnt = unlearnt_tasks(tables)
    why = "the fine-tuned model did not learn its task (the gain's interval is not above 0): "
    if needs == "mark":
        return None, {}, {t: "not learnt" for t in unlearnt}
    if needs != "per":
        failed = [unlearnt[t] for t in needs if t in unlearnt]
        return (Outcome("not applicable", reason=why + "; ".join(failed)) if failed else None), {}, {}
    check = claim["check"]
    skip = {t: text for t, text in unlearnt.items() if t in _levels(check, tables)}
    if skip and len(skip) == len(_levels(check, tables)):
        return Outcome("not applicable", reason=why + "; ".join(skip.values())), skip, {}
    return None, skip, {}


def _specs(check: dict) -> list[dict]:
    return [check["value"]] if "value" in check else list(check.get("greater", []))


def _refuted(claim: dict, refute: dict, tables, skip, boots) -> tuple[bool, str]:
    """Whether the claim's failure is evidence of absence: its refutation holds (firmly, where it
    has replicates); with ``per``, at some level where the check itself does not hold (one level
    firmly refuted is enough to refute "at every level")."""
    if not refute.get("per"):
        j = run_check(refute, tables, skip, boots)
        return j.ok and j.firm is not False, j.text
    check, texts = claim["check"], []
    for level in [lvl for lvl in _levels(refute, tables) if lvl not in skip]:
        where = {refute["per"]: level}
        if _check_once(check, tables, where, boots).ok:
            continue
        j = _check_once(refute, tables, where, boots)
        texts.append(f"{level}: {j.text}")
        if j.ok and j.firm is not False:
            return True, "; ".join(texts)
    return False, "; ".join(texts)


def load_table(path) -> pd.DataFrame:
    """A claim table (or its replicate table), with depth columns added."""
    return with_depth(pd.read_csv(path))


def load_tables(stems, table_dir: Path, suffix: str = "") -> dict[str, pd.DataFrame]:
    """The tables that exist under ``table_dir`` (``<stem><suffix>.csv``; ``suffix=".boot"``: the
    replicate tables), by stem, with depth columns added."""
    return {
        stem: load_table(Path(table_dir) / f"{stem}{suffix}.csv")
        for stem in stems
        if (Path(table_dir) / f"{stem}{suffix}.csv").exists()
    }


def evaluate_claim(
    claim: dict, tables: dict[str, pd.DataFrame], not_selected: set[str] = frozenset(), boots=None
) -> Outcome:
    """The verdict of one claim on one model's tables (``boots``: their replicate tables, by stem)."""
    missing = [t for t in tables_read(claim) if t not in tables]
    if missing:
        why = "not selected (scorecard.rules)" if {m.split(".")[0] for m in missing} & not_selected else "not produced"
        return Outcome("not run", reason=f"table {', '.join(missing)} {why}")
    premise = claim.get("applies_if")
    try:
        if premise:
            met = run_check(premise, tables)
            if not met.ok:
                return Outcome("not applicable", reason=f"{premise['reason']} (measured: {met.text})")
        not_learnt, skip, mark = _not_learnt(claim, tables)
        if not_learnt:
            return not_learnt
        judged = run_check(claim["check"], tables, skip, boots, mark)
        refute = claim.get("refuted_if")
        refuted = _refuted(claim, refute, tables, skip, boots) if refute and not judged.ok else None
    except NoRows as e:
        if claim.get("optional"):
            return Outcome("not run", reason=f"{e}: {claim['optional']}")
        raise ClaimError(
            f"claim {claim['id']}: {e}; fix its where, or say why its rows may be absent with `optional: <why>`"
        ) from None
    left_out = "; ".join(skip.values())
    absent = absent_members(_specs(claim["check"]), tables)
    reasons = [
        f"left out, not learnt: {left_out}" if left_out else "",
        f"no row: {', '.join(absent)}" if absent else "",
    ]
    verdict = "holds" if judged.ok else "does not hold"
    if judged.firm is False:
        verdict = INCONCLUSIVE
        reasons.insert(
            0, f"the 95% interval {judged.interval} does not decide it" + (f" ({judged.why})" if judged.why else "")
        )
    elif refuted is not None and not refuted[0]:
        # a failed test is no evidence of absence: "does not hold" needs its refutation to hold too
        verdict = INCONCLUSIVE
        reasons.insert(0, f"{refute['reason']} (measured: {refuted[1]})")
    if judged.firm is None:
        interval, basis = f"none (no replicates of {', '.join(tables_read(claim))})", "point only"
    else:
        interval, basis = judged.interval, judged.basis
    return Outcome(
        verdict, our_value=judged.text, reason="; ".join(filter(None, reasons)), interval=interval,
        replicates=judged.replicates, basis=basis, p_value=judged.p_value, strength=judged.strength,
        strength_point=judged.strength_point,
    )  # fmt: skip
