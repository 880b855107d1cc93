"""How a claim's quantity is moved onto its threshold and beyond it, for the calibration on the
project's own data (tools/measure/own_calibration.py): the spec whose rows are shifted, the
quantity and its bootstrap SD on a run, and the run (or claim) with the quantity moved."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from analysis.scorecard.run import Run
from analysis.scorecard.values import replicate_values, select, side, value


@dataclass
class Quantity:
    """How a claim's quantity (side-signed: > 0 is its holding side) moves with the data: the spec
    whose rows are shifted, and the quantity's change per unit added to them (a value with a
    computed column and no levels moves its threshold instead)."""

    spec: dict
    factor: float


class NotCovered(ValueError):
    """A claim this calibration cannot shift (an order of more than two values; computed columns per level)."""


def quantity_of(check: dict) -> Quantity:
    if "value" in check:
        return Quantity(_movable(check["value"]), float(side(check["op"]) or 1))
    if len(check["greater"]) == 2:
        return Quantity(_movable(check["greater"][1]), -1.0)
    raise NotCovered(f"an order of {len(check['greater'])} values")


def _movable(spec: dict) -> dict:
    """``spec``, whose value a shift of its column moves by as much: not a count of rows, nor rows
    chosen on that column (a shift would change which rows it reads)."""
    col = spec["column"]
    if spec.get("agg") == "count":
        raise NotCovered("a count of rows (a shift does not move it by as much)")
    if col in (spec.get("where") or {}) or re.search(rf"\b{re.escape(col)}\b", spec.get("query", "")):
        raise NotCovered(f"its rows are chosen on {col!r}, the column a shift moves")
    return spec


def _quantity(check: dict, run: Run, where) -> tuple[float, pd.Series]:
    """The quantity at one level (``where``) on the run's point tables, and on its replicates."""
    if "value" in check:
        s = side(check["op"]) or 1
        v = value(check["value"], run.tables, where)
        reps = pd.to_numeric(replicate_values(check["value"], run.boots, where), errors="coerce")
        return s * (float(v) - check["threshold"]), (s * (reps - check["threshold"])).reset_index(drop=True)
    a, b = (value(sp, run.tables, where) for sp in check["greater"])
    ra, rb = (pd.to_numeric(replicate_values(sp, run.boots, where), errors="coerce") for sp in check["greater"])
    margin = check.get("margin", 0.0)
    return float(a) - float(b) - margin, (ra.reset_index(drop=True) - rb.reset_index(drop=True) - margin)


def _where(check: dict, level):
    return None if level is None else {check["per"]: level}


def seed_quantities(check: dict, runs: list[Run], level_key) -> tuple[np.ndarray, np.ndarray]:
    """Over k training seeds (``runs``: :func:`analysis.scorecard.seeds.seed_runs`; one run: k = 1): per
    level and seed (levels, k) the seed's quantity on its point tables, and per level the bootstrap SD
    of the seed mean (replicate b of every seed side by side, as the engine reads it)."""
    q, se = [], []
    for lv in level_key:
        parts = [_quantity(check, r, _where(check, lv)) for r in runs]
        q.append([p for p, _ in parts])
        se.append(float(pd.concat([r for _, r in parts], axis=1).mean(axis=1, skipna=False).std()))
    return np.array(q), np.array(se)


def leading_column(column: str, columns) -> str:
    """The column a shift adds to: ``column`` itself, or the leading term of a computed column that
    a shift of that term moves by as much (``a - b``, ``a + b``)."""
    if column in columns:
        return column
    lead = re.match(r"\s*([A-Za-z_]\w*)\s*[-+]", column)
    if lead and lead.group(1) in columns:
        return lead.group(1)
    raise NotCovered(f"computed column {column!r} read per level or over seeds")


def shifted(frames: dict, spec: dict, per, levels, deltas) -> dict:
    """``frames`` with ``deltas`` (per level) added to ``spec``'s column on the rows it reads."""
    df = frames[spec["table"]].copy()
    col = leading_column(spec["column"], df.columns)
    rows = select(df.assign(_row=np.arange(len(df))), spec.get("where"))
    for lv, d in zip(levels, deltas):
        at = rows if lv is None else select(rows, {per: lv})
        df.iloc[at["_row"].to_numpy(), df.columns.get_loc(col)] += d
    return {**frames, spec["table"]: df}


def moved(claim: dict, quantity: Quantity, run: Run, levels, change: np.ndarray, by_threshold=True) -> tuple[dict, Run]:
    """The claim and run with each level's quantity moved by ``change`` (a value with a computed
    column and no levels: by its threshold, unless ``by_threshold`` is False)."""
    check = claim["check"]
    computed = quantity.spec["column"] not in run.tables[quantity.spec["table"]].columns
    if by_threshold and len(levels) == 1 and computed and "value" in check:
        moved = copy.deepcopy(claim)  # the value moves by change == the threshold by -change
        moved["check"]["threshold"] = check["threshold"] - (side(check["op"]) or 1) * float(change[0])
        return moved, run
    deltas = change / quantity.factor
    per = check.get("per")
    tables, boots = (shifted(frames, quantity.spec, per, levels, deltas) for frames in (run.tables, run.boots))
    return claim, replace(run, tables=tables, boots=boots)


def moved_seeds(claim: dict, quantity: Quantity, run: Run, levels, changes: np.ndarray) -> tuple[dict, Run]:
    """The claim and a run pooled over training seeds (the model's own run, then ``run.trainings``)
    with seed s's quantity moved by ``changes[:, s]`` per level."""
    _, own = moved(claim, quantity, run, levels, changes[:, 0], by_threshold=False)
    trainings = tuple(
        moved(claim, quantity, t, levels, changes[:, s], by_threshold=False)[1] for s, t in enumerate(run.trainings, 1)
    )
    return claim, replace(own, trainings=trainings)
