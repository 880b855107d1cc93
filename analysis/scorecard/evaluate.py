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
learnt when the 95% bootstrap interval of its main metric's gain over the majority class lies
above 0 (column ``learnt`` of table finetune_scores). A listed task not learnt makes the claim
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
    NoRows,
    distinct_texts,
    fmt,
    interval_text,
    replicate_values,
    select,
    value,
    with_depth,
)

# "holds, also at random init": the claim holds, and so it does for the model's random-init control
# (a claim that reads attention maps): what a network with random weights also shows is no evidence
# of what the model learnt, so the summary does not count it as support
ALSO_RANDOM = "holds, also at random init"
INCONCLUSIVE = "inconclusive"
VERDICTS = ("holds", ALSO_RANDOM, INCONCLUSIVE, "does not hold", "not applicable", "not run")
AGREEMENT = 0.975  # share of replicates that must agree with a verdict (one side of a 95% interval)


class ClaimError(ValueError):
    """A claim that cannot be evaluated as written (its ``where`` matches no row, and it is not optional)."""


@dataclass
class Outcome:
    verdict: str
    our_value: str = ""
    reason: str = ""
    interval: str = ""  # our value's 95% interval(s), or why there is none
    replicates: int = 0  # replicates the interval came from (0: none)


@dataclass
class Judgement:
    """One check on one model: the point verdict, our value, and how firm it is over the replicates."""

    ok: bool
    text: str
    firm: bool | None = None  # None: no replicates; else whether >= AGREEMENT of them agree with ``ok``
    interval: str = ""
    replicates: int = 0


def _agrees(outcomes: pd.Series, ok: bool) -> bool:
    """Whether at least AGREEMENT of the replicates' outcomes (NaN: no value) agree with ``ok``."""
    return bool(len(outcomes)) and float((outcomes == ok).mean()) >= AGREEMENT


def _levels(check: dict, tables) -> list:
    spec = check["value"] if "value" in check else check["greater"][0]
    df = select(tables[spec["table"]], spec.get("where"))
    return list(dict.fromkeys(df[check["per"]].tolist()))


def _holds(v, op: str, threshold) -> bool:
    """``v op threshold``; a tie never holds (">" and "<" refuse it anyway)."""
    if op in (">=", "<=") and v == threshold:
        return False
    return bool(OPS[op](v, threshold))


def _check_once(check: dict, tables, extra_where=None, boots=None) -> Judgement:
    boots = boots or {}
    if "value" in check:
        v = value(check["value"], tables, extra_where)
        ok = _holds(v, check["op"], check["threshold"])
        text = (
            f"{fmt(v)} (tie with the threshold)" if check["op"] in (">=", "<=") and v == check["threshold"] else fmt(v)
        )
        reps = replicate_values(check["value"], boots, extra_where)
        if reps is None:
            return Judgement(ok, text)
        outcomes = reps.map(lambda r: _holds(r, check["op"], check["threshold"]) if pd.notna(r) else np.nan)
        return Judgement(ok, text, _agrees(outcomes, ok), interval_text(reps), len(reps))
    specs = check["greater"]
    values = [value(spec, tables, extra_where) for spec in specs]
    margin = check.get("margin", 0.0)
    ok = all(a > b + margin for a, b in zip(values, values[1:]))
    text = (" > " if ok else " vs ").join(distinct_texts(values))
    reps = [replicate_values(spec, boots, extra_where) for spec in specs]
    if any(r is None for r in reps):
        return Judgement(ok, text)
    # every adjacent difference must sit on one side of the margin in >= AGREEMENT of the replicates
    firm = True
    for a, b, ra, rb in zip(values, values[1:], reps, reps[1:]):
        diff = pd.to_numeric(ra, errors="coerce") - pd.to_numeric(rb, errors="coerce")
        firm &= _agrees(diff.map(lambda d: d > margin if pd.notna(d) else np.nan), a > b + margin)
    return Judgement(ok, text, firm, "; ".join(interval_text(r) for r in reps), len(reps[0]))


def run_check(check: dict, tables, skip=frozenset(), boots=None) -> Judgement:
    """The check's judgement; with ``per``, every level (but those in ``skip``) must hold: it holds
    firmly when every level does, and does not hold firmly when some level firmly does not."""
    if not check.get("per"):
        return _check_once(check, tables, boots=boots)
    levels = [level for level in _levels(check, tables) if level not in skip]
    results = [(level, _check_once(check, tables, {check["per"]: level}, boots)) for level in levels]
    if not results:
        raise NoRows(f"no level of {check['per']!r}")
    ok = all(j.ok for _, j in results)
    text = "; ".join(f"{lvl}: {j.text}" for lvl, j in results)
    if any(j.firm is None for _, j in results):
        return Judgement(ok, text)
    firm = all(j.firm for _, j in results) if ok else any(j.firm and not j.ok for _, j in results)
    interval = "; ".join(f"{lvl}: {j.interval}" for lvl, j in results)
    return Judgement(ok, text, firm, interval, results[0][1].replicates)


def tables_read(claim: dict) -> list[str]:
    """Every table stem a claim reads (its check and its premise)."""
    specs = []
    for check in (claim["check"], claim.get("applies_if") or {}):
        specs += [check["value"]] if "value" in check else list(check.get("greater", []))
    learnt = [LEARNT_TABLE] if claim.get("learnt_tasks") else []
    return list(dict.fromkeys([s["table"] for s in specs] + learnt))


LEARNT_TABLE = "finetune_scores"


def unlearnt_tasks(tables) -> dict[str, str]:
    """Task -> why its fine-tuned model did not learn it (main metric, score, gain interval)."""
    df = tables[LEARNT_TABLE]
    rows = df[df["main"].astype(bool) & ~df["learnt"].astype(bool)]
    return {
        r.task: f"{r.task} {r.metric} {fmt(r.finetuned)} vs majority class {fmt(r.majority)}, "
        f"gain 95% CI [{fmt(r.gain_ci95_low)}, {fmt(r.gain_ci95_high)}]"
        for r in rows.itertuples()
    }


def _not_learnt(claim: dict, tables) -> tuple[Outcome | None, dict[str, str]]:
    """(an Outcome when the claim is not applicable for want of a learnt task, tasks to leave out)."""
    needs = claim.get("learnt_tasks")
    if not needs:
        return None, {}
    unlearnt = unlearnt_tasks(tables)
    why = "the fine-tuned model did not learn its task (the gain's interval is not above 0): "
    if needs != "per":
        failed = [unlearnt[t] for t in needs if t in unlearnt]
        return (Outcome("not applicable", reason=why + "; ".join(failed)) if failed else None), {}
    check = claim["check"]
    skip = {t: text for t, text in unlearnt.items() if t in _levels(check, tables)}
    if skip and len(skip) == len(_levels(check, tables)):
        return Outcome("not applicable", reason=why + "; ".join(skip.values())), skip
    return None, skip


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
        not_learnt, skip = _not_learnt(claim, tables)
        if not_learnt:
            return not_learnt
        judged = run_check(claim["check"], tables, skip, boots)
    except NoRows as e:
        if claim.get("optional"):
            return Outcome("not run", reason=f"{e}: {claim['optional']}")
        raise ClaimError(
            f"claim {claim['id']}: {e}; fix its where, or say why its rows may be absent with `optional: <why>`"
        ) from None
    left_out = "; ".join(skip.values())
    reason = f"left out, not learnt: {left_out}" if left_out else ""
    verdict = "holds" if judged.ok else "does not hold"
    if judged.firm is False:
        verdict = INCONCLUSIVE
        reason = "; ".join(filter(None, [f"the 95% interval {judged.interval} does not decide it", reason]))
    interval = (
        judged.interval if judged.firm is not None else f"none (no replicates of {', '.join(tables_read(claim))})"
    )
    return Outcome(verdict, our_value=judged.text, reason=reason, interval=interval, replicates=judged.replicates)
