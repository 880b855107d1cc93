"""Evaluate the machine-checkable claims of config/paper_claims.yaml on one model's tables.

A claim's ``check`` is made of *values*: a value selects rows of one table (``where``), optionally
averages them per group (``group_by``), and reduces one column (or a pandas expression of
columns) with ``agg``. A check compares one value with a threshold (``value``/``op``/``threshold``)
or requires values in strictly decreasing order (``greater: [v1, v2, ...]``), optionally once per
level of a column (``per``: every level must hold). ``query`` (a pandas query) selects rows by
conditions between columns. ``applies_if`` (same form as a check, plus
``reason``) makes a claim ``not applicable`` where its premise fails (e.g. no [SEP] sink).

Operators mean what they say (``>=`` holds on equality; ``==`` asks for equality, e.g. the most
common pattern type); an argmax with tied rows is no single level and decides nothing; a ``where``
list member with no row is named in the reason. A ``where`` that matches no row at all is an error
naming the claim, unless the claim says why its rows may be absent (``optional: <why>``): it is
then ``not run`` with that reason.

Intervals and a third verdict (:mod:`analysis.scorecard.checks`): where a claim's table has
replicates (``<stem>.boot.csv``: the table recomputed on B seeded resamples of its independent
units, by cluster where they come in clusters, column ``replicate``), the claim's value is computed
on every replicate too; its 95% interval is their 2.5th-97.5th percentiles and the verdict is
``holds`` or ``does not hold`` only when at least 97.5% of them agree (a value missing on more than
2.5% of them never is). A table resampled by G clusters (column ``resampled_units``) asks for more:
the interval widened by sqrt(G/(G-1)) t(G-1)/z, read off the replicates (e.g. 98.7% of them for 15
clusters; :func:`analysis.scorecard.few_units.required_share`). An order holds firmly when every adjacent difference does, and does not
hold firmly when a failing one firmly fails (Bonferroni over the pairs); a per-level claim likewise
over its levels. Trainings without a bootstrap (k seeds) read as their mean and t interval. A claim
whose tables have no replicates is judged on its point value (basis ``point only``). With
``refuted_if`` (evidence of absence), a claim that fails is ``does not hold`` only where its
refutation holds; else ``inconclusive``. With ``resolved_if`` (a premise on how well the data
resolve the reading, e.g. a curve with points on both sides of the level it is read at), a claim
whose premise fails is ``inconclusive`` with its reason, whatever its check says.

A claim read on fine-tuned models names the tasks whose model must have learnt its task
(``learnt_tasks: [RTE]``, ``per`` for every level of its ``per: task``, or ``mark``): a task is
learnt when the 95% bootstrap interval of its gain over the majority class (accuracy for an F1
task, MCC for CoLA, else the main metric) lies above 0 (column ``learnt`` of finetune_scores). A
listed task not learnt makes the claim ``not applicable``; with ``per``, the tasks not learnt are
left out (named in the reason), and the claim is ``not applicable`` when none is left; with
``mark`` (claims on a fine-tuned model's maps, not its behaviour) every task is judged and one not
learnt is marked beside its value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.scorecard.checks import Judgement, check_once, levels_of, run_check
from analysis.scorecard.values import (  # noqa: F401 (distinct_texts, replicate_values, value: this module's interface too)
    NoRows,
    absent_members,
    distinct_texts,
    fmt,
    replicate_values,
    specs_of,
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
    units: float = np.inf  # independent units (clusters) its replicates drew; inf: many
    values: list = field(default_factory=list)  # the numbers our_value shows: (level or None, position, value)


def tables_read(claim: dict) -> list[str]:
    """Every table stem a claim reads (its check, its premise, its refutation, the learnt test's)."""
    specs = [s for key in ("check", "applies_if", "refuted_if", "resolved_if") for s in specs_of(claim.get(key))]
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
    skip = {t: text for t, text in unlearnt.items() if t in levels_of(check, tables)}
    if skip and len(skip) == len(levels_of(check, tables)):
        return Outcome("not applicable", reason=why + "; ".join(skip.values())), skip, {}
    return None, skip, {}


def _refuted(judged: Judgement, refute: dict, tables, skip, boots) -> tuple[bool, str]:
    """Whether the claim's failure is evidence of absence: its refutation holds (firmly, where it
    has replicates); with ``per``, at some level where the check itself does not hold (one level
    firmly refuted is enough to refute "at every level")."""
    if not refute.get("per"):
        j = run_check(refute, tables, skip, boots)
        return j.ok and j.firm is not False, j.text
    texts = []
    for level in [lvl for lvl in levels_of(refute, tables) if lvl not in skip]:
        if level in judged.levels and judged.levels[level].ok:
            continue
        j = check_once(refute, tables, {refute["per"]: level}, boots)
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
        why = (
            "not selected (overview.scorecard_rules)"
            if {m.split(".")[0] for m in missing} & not_selected
            else "not produced"
        )
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
        refuted = _refuted(judged, refute, tables, skip, boots) if refute and not judged.ok else None
        resolved = claim.get("resolved_if")
        unresolved = run_check(resolved, tables) if resolved else None
    except NoRows as e:
        if claim.get("optional"):
            return Outcome("not run", reason=f"{e}: {claim['optional']}")
        raise ClaimError(
            f"claim {claim['id']}: {e}; fix its where, or say why its rows may be absent with `optional: <why>`"
        ) from None
    left_out = "; ".join(skip.values())
    absent = absent_members(specs_of(claim["check"]), tables)
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
    if unresolved is not None and not unresolved.ok:
        # the data do not resolve the reading (e.g. a curve read between points it lacks)
        verdict = INCONCLUSIVE
        reasons.insert(0, f"{resolved['reason']} (measured: {unresolved.text})")
    if judged.firm is None:
        # the check's tables without replicates (a premise's or the learnt test's do not make the interval)
        bare = [t for t in dict.fromkeys(s["table"] for s in specs_of(claim["check"])) if t not in (boots or {})]
        interval, basis = f"none (no replicates of {', '.join(bare)})", "point only"
    else:
        interval, basis = judged.interval, judged.basis
    return Outcome(
        verdict, our_value=judged.text, reason="; ".join(filter(None, reasons)), interval=interval,
        replicates=judged.replicates, basis=basis, p_value=judged.p_value, strength=judged.strength,
        strength_point=judged.strength_point, units=judged.units, values=judged.values,
    )  # fmt: skip
