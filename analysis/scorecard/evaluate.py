"""Evaluate the machine-checkable claims of config/claims/ on one model's tables.

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
over its levels. Over k training seeds (config ``trainings``) each seed is judged alone and the
claim's quantity read as their mean with a t interval on the between-seed plus bootstrap variance
(basis ``seeds``: :mod:`analysis.scorecard.seeds`); a firm verdict on one seed of a claim the seed
reference covers must survive its interval widened by the reference's between-seed SD, else it reads
``inconclusive (seed)``. A claim whose tables have no replicates is judged on its point value (basis
``point only``). With
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

from analysis.scorecard.calibrated_tails import NOMINAL
from analysis.scorecard.checks import Judgement, check_once, levels_of, run_check
from analysis.scorecard.run import Run
from analysis.scorecard.values import (  # noqa: F401 (replicate_values, value: this module's interface too)
    NoRows,
    absent_members,
    replicate_values,
    specs_of,
    value,
    with_depth,
)
from analysis.scorecard.wording import distinct_texts, interval_text, reasons_text, value_text  # noqa: F401

# "holds, also at random init": the claim holds, but the model is not firmly further in the claim's
# direction than its random-init control (a claim that reads attention maps, control role
# ``learned``), or the control holds or is undecided too (role ``descriptive``): what a network with
# random weights also shows is no evidence of what the model learnt, so it is not counted as support
ALSO_RANDOM = "holds, also at random init"
INCONCLUSIVE = "inconclusive"
# a firm verdict whose claim is not a Benjamini-Hochberg discovery over all claims with a p
# (analysis.scorecard.multiplicity): it would be firm alone, not among so many claims
MULTIPLICITY = "inconclusive (multiplicity)"
# a firm verdict on one training seed that its interval widened by the seed reference's between-seed
# SD does not decide (analysis.scorecard.seeds): it would be firm for this seed, not for a new one
SEED = "inconclusive (seed)"
# a claim read off fine-tuned maps that holds: no random-init network is fine-tuned the same way, so
# nothing shows that a fine-tuned random network would not show it too; counted apart from support
NO_CONTROL = "holds (no control)"
VERDICTS = (
    "holds",
    ALSO_RANDOM,
    NO_CONTROL,
    INCONCLUSIVE,
    MULTIPLICITY,
    SEED,
    "does not hold",
    "not applicable",
    "not run",
)


class ClaimError(ValueError):
    """A claim that cannot be evaluated as written (its ``where`` matches no row, and it is not optional)."""


@dataclass
class Outcome:
    """A claim's verdict on one model, with the judgement of its check (None: not judged) and the
    reasons (text as given, or a reason's numbers and judgements: :func:`analysis.scorecard.wording.reason_text`).
    Its texts (``our_value``, ``interval``, ``reason``) are the wording's of these numbers."""

    verdict: str
    judged: Judgement | None = None
    reasons: list = field(default_factory=list)
    bare: list = field(default_factory=list)  # the check's tables without replicates (a point-only judgement)

    @property
    def our_value(self) -> str:
        return value_text(self.judged) if self.judged is not None else ""

    @property
    def reason(self) -> str:
        return reasons_text(self.reasons)

    @property
    def interval(self) -> str:
        """Our value's 95% interval(s), or why there is none."""
        if self.judged is None:
            return ""
        if self.judged.firm is None:
            return f"none (no replicates of {', '.join(self.bare)})"
        return interval_text(self.judged)

    @property
    def basis(self) -> str:
        """What the verdict rests on: bootstrap | seeds | point only (no replicates)."""
        if self.judged is None:
            return ""
        return "point only" if self.judged.firm is None else self.judged.basis

    def _number(self, name: str, none):
        return getattr(self.judged, name) if self.judged is not None else none

    # the judgement's numbers, passed on (their value where the claim was not judged)
    replicates = property(lambda self: self._number("replicates", 0))
    p_value = property(lambda self: self._number("p_value", np.nan))
    strength = property(lambda self: self._number("strength", None))
    strength_point = property(lambda self: self._number("strength_point", np.nan))
    units = property(lambda self: self._number("units", np.inf))
    values = property(lambda self: self._number("values", []))


def tables_read(claim: dict) -> list[str]:
    """Every table stem a claim reads (its check, its premise, its refutation, the learnt test's)."""
    specs = [s for key in ("check", "applies_if", "refuted_if", "resolved_if") for s in specs_of(claim.get(key))]
    learnt = [LEARNT_TABLE] if claim.get("learnt_tasks") else []
    return list(dict.fromkeys([s["table"] for s in specs] + learnt))


LEARNT_TABLE = "finetune_scores"


def unlearnt_tasks(tables) -> dict[str, dict]:
    """Task -> why its fine-tuned model did not learn it: the learnt test's metric (accuracy for an
    F1 task, MCC for CoLA: column learnt_metric, where the table has it), score and gain interval."""
    df = tables[LEARNT_TABLE]
    if "learnt" not in df.columns:
        raise ValueError(f"{LEARNT_TABLE} has no column learnt (the learnt test of rule finetune): rerun it")
    main = df[df["main"].astype(bool)]
    # a missing value is no "learnt": a task read as learnt without its test would be judged
    learnt = main["learnt"].map({True: True, False: False, "True": True, "False": False})
    if learnt.isna().any():
        raise ValueError(
            f"{LEARNT_TABLE}: no learnt value for task {', '.join(map(str, main.loc[learnt.isna(), 'task']))} "
            "(the learnt test of rule finetune): rerun it"
        )
    rows = main[~learnt.astype(bool)]
    out = {}
    for r in rows.itertuples():
        metric = getattr(r, "learnt_metric", r.metric)
        row = df[(df["task"] == r.task) & (df["metric"] == metric)]
        row = next(row.itertuples()) if len(row) else r
        low = getattr(r, "learnt_gain_ci95_low", r.gain_ci95_low)
        high = getattr(r, "learnt_gain_ci95_high", r.gain_ci95_high)
        out[r.task] = {
            "task": r.task, "metric": metric, "finetuned": row.finetuned, "majority": row.majority,
            "low": low, "high": high,
        }  # fmt: skip
    return out


def _not_learnt(claim: dict, run: Run) -> tuple[Outcome | None, dict, dict[str, str]]:
    """(an Outcome when the claim is not applicable for want of a learnt task, tasks to leave out,
    tasks to mark): ``learnt_tasks: mark`` judges every task and marks those not learnt."""
    needs = claim.get("learnt_tasks")
    if not needs:
        return None, {}, {}
    unlearnt = unlearnt_tasks(run.tables)
    if needs == "mark":
        return None, {}, {t: "not learnt" for t in unlearnt}
    if needs != "per":
        failed = [unlearnt[t] for t in needs if t in unlearnt]
        return (Outcome("not applicable", reasons=[("not learnt", failed)]) if failed else None), {}, {}
    check = claim["check"]
    skip = {t: test for t, test in unlearnt.items() if t in levels_of(check, run.tables)}
    if skip and len(skip) == len(levels_of(check, run.tables)):
        return Outcome("not applicable", reasons=[("not learnt", list(skip.values()))]), skip, {}
    return None, skip, {}


def _refuted(judged: Judgement, refute: dict, run: Run, skip) -> tuple[bool, list]:
    """Whether the claim's failure is evidence of absence: its refutation holds (firmly, where it
    has replicates); with ``per``, at some level where the check itself does not hold (one level
    firmly refuted is enough to refute "at every level"). Also what it measured: (level, judgement)."""
    if not refute.get("per"):
        j = run_check(refute, run, skip)
        return j.ok and j.firm is not False, [(None, j)]
    measured = []
    for level in [lvl for lvl in levels_of(refute, run.tables) if lvl not in skip]:
        if level in judged.levels and judged.levels[level].ok:
            continue
        j = check_once(refute, run, {refute["per"]: level})
        measured.append((level, j))
        if j.ok and j.firm is not False:
            return True, measured
    return False, measured


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


def evaluate_claim(claim: dict, run: Run) -> Outcome:
    """The verdict of one claim on one run's tables and replicate tables."""
    tables, boots = run.tables, run.boots
    missing = [t for t in tables_read(claim) if t not in tables]
    if missing:
        left_out = bool({m.split(".")[0] for m in missing} & run.not_selected)
        return Outcome("not run", reasons=[("not run", missing, left_out)])
    premise = claim.get("applies_if")
    try:
        if premise:
            met = run_check(premise, Run(tables))
            if not met.ok:
                return Outcome("not applicable", reasons=[("premise", premise["reason"], met)])
        not_learnt, skip, mark = _not_learnt(claim, run)
        if not_learnt:
            return not_learnt
        reference = run.reference.of(claim["id"]) if run.reference is not None and claim.get("trained") else {}
        tails = run.calibrated_tails.scale(claim["id"]) if run.calibrated_tails is not None else (1.0, 1.0)
        judged = run_check(claim["check"], run, skip, mark, reference, tails)
        # firm on its own bootstrap, not once widened by the seed reference: inconclusive (seed)
        seed_only = (
            bool(reference) and judged.firm is False and run_check(claim["check"], run, skip, mark, None, tails).firm
        )
        # firm at the nominal level, not at the claim's calibrated tails: inconclusive, said so
        nominal = tails != (1.0, 1.0) and judged.firm is False and not seed_only
        nominal = nominal and run_check(claim["check"], run, skip, mark, reference).firm
        refute = claim.get("refuted_if")
        refuted = _refuted(judged, refute, run, skip) if refute and not judged.ok else None
        resolved = claim.get("resolved_if")
        unresolved = run_check(resolved, Run(tables)) if resolved else None
    except NoRows as e:
        if claim.get("optional"):
            return Outcome("not run", reasons=[f"{e}: {claim['optional']}"])
        raise ClaimError(
            f"claim {claim['id']}: {e}; fix its where, or say why its rows may be absent with `optional: <why>`"
        ) from None
    reasons = [("left out", list(skip.values())), ("no row", absent_members(specs_of(claim["check"]), tables))]
    verdict = "holds" if judged.ok else "does not hold"
    if judged.firm is False:
        verdict = SEED if seed_only else INCONCLUSIVE
        tail = ("calibrated", tails[1 - judged.ok] * NOMINAL, run.calibrated_tails.source) if nominal else None
        reasons.insert(0, ("seed", judged) if seed_only else tail or ("undecided", judged))
    elif refuted is not None and not refuted[0]:
        # a failed test is no evidence of absence: "does not hold" needs its refutation to hold too
        verdict = INCONCLUSIVE
        reasons.insert(0, ("refuted", refute["reason"], refuted[1]))
    if unresolved is not None and not unresolved.ok:
        # the data do not resolve the reading (e.g. a curve read between points it lacks)
        verdict = INCONCLUSIVE
        reasons.insert(0, ("resolved", resolved["reason"], unresolved))
    # the check's tables without replicates (a premise's or the learnt test's do not make the interval)
    bare = [t for t in dict.fromkeys(s["table"] for s in specs_of(claim["check"])) if t not in boots]
    return Outcome(verdict, judged, reasons, bare)
