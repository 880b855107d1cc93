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

A claim read on fine-tuned models names the tasks whose model must have learnt its task
(``learnt_tasks: [RTE]``, or ``learnt_tasks: per`` for every level of its ``per: task``): a task is
learnt when the 95% bootstrap interval of its main metric's gain over the majority class lies
above 0 (column ``learnt`` of table finetune_scores). A listed task not learnt makes the claim
``not applicable``; with ``per``, the tasks not learnt are left out (named in the reason), and
the claim is ``not applicable`` when none is left.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

# "holds, also at random init": the claim holds, and so it does for the model's random-init control
# (a claim that reads attention maps): what a network with random weights also shows is no evidence
# of what the model learnt, so the summary does not count it as support
ALSO_RANDOM = "holds, also at random init"
VERDICTS = ("holds", ALSO_RANDOM, "does not hold", "not applicable", "not run")
OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq}
AGGS = ("max", "min", "mean", "median", "sum", "count", "first")


class NoRows(ValueError):
    """A value's ``where`` matched no row of its table."""


class ClaimError(ValueError):
    """A claim that cannot be evaluated as written (its ``where`` matches no row, and it is not optional)."""


@dataclass
class Outcome:
    verdict: str
    our_value: str = ""
    reason: str = ""


def with_depth(df: pd.DataFrame) -> pd.DataFrame:
    """Add ``relative_depth`` (layer / number of layers) and ``layers_from_end`` (0 = last layer)
    to a table with a 1-indexed ``layer`` column, so claims about "early" or "the last two
    layers" read the same for models of any depth."""
    if "layer" not in df.columns:
        return df
    layer = pd.to_numeric(df["layer"], errors="coerce")
    n_layers = layer.max()
    return df.assign(relative_depth=layer / n_layers, layers_from_end=n_layers - layer)


def _match(column: pd.Series, condition) -> pd.Series:
    if isinstance(condition, dict):
        mask = pd.Series(True, index=column.index)
        for op, bound in condition.items():
            if op == "in":
                mask &= column.isin(bound)
            elif op == "not in":
                mask &= ~column.isin(bound)
            elif op == "!=":
                mask &= column != bound
            else:
                mask &= OPS[op](pd.to_numeric(column, errors="coerce"), bound)
        return mask
    if isinstance(condition, list):
        return column.isin(condition)
    if isinstance(condition, (int, float)) and not isinstance(condition, bool):
        return pd.to_numeric(column, errors="coerce") == condition
    return column.astype(str) == str(condition)


def select(df: pd.DataFrame, where: dict | None) -> pd.DataFrame:
    mask = pd.Series(True, index=df.index)
    for col, condition in (where or {}).items():
        if col not in df.columns:
            raise KeyError(f"column {col!r} not in table (columns: {', '.join(df.columns)})")
        mask &= _match(df[col], condition)
    return df[mask]


def column_values(df: pd.DataFrame, column: str) -> pd.Series:
    """A column, or a pandas expression of columns (e.g. ``entropy / uniform_entropy``)."""
    if column in df.columns:
        return df[column]
    return df.eval(column)


def reduce(df: pd.DataFrame, column: str, agg: str):
    """``agg`` of ``column`` over the rows; ``argmax:<col>`` / ``argmin:<col>`` give ``<col>`` of
    the row where ``column`` is largest / smallest (the first such row)."""
    values = column_values(df, column)
    values = values if agg == "first" else pd.to_numeric(values, errors="coerce")
    if agg.startswith(("argmax:", "argmin:")):
        kind, of = agg.split(":", 1)
        at = values.idxmax() if kind == "argmax" else values.idxmin()
        return df.loc[at, of]
    if agg == "count":
        return int(len(df))
    if agg not in AGGS:
        raise ValueError(f"unknown agg {agg!r}; known: {AGGS} and argmax:<col>, argmin:<col>")
    return values.iloc[0] if agg == "first" else float(getattr(values, agg)())


def value(spec: dict, tables: dict[str, pd.DataFrame], extra_where: dict | None = None):
    """One value of a check (see the module docstring)."""
    df = select(tables[spec["table"]], {**spec.get("where", {}), **(extra_where or {})})
    if spec.get("query"):  # conditions between columns, e.g. "layer_a == layer_b"
        df = df.query(spec["query"])
    if df.empty and spec.get("agg") == "count":
        return 0
    if df.empty:
        raise NoRows(f"no row of {spec['table']} matches { ({**spec.get('where', {}), **(extra_where or {})}) }")
    if spec.get("group_by"):
        keys = list(spec["group_by"])
        col = spec["column"]
        grouped = df.assign(_v=pd.to_numeric(column_values(df, col), errors="coerce"))
        df = grouped.groupby(keys, as_index=False)["_v"].agg(spec.get("group_agg", "mean"))
        df = with_depth(df.rename(columns={"_v": col})) if "layer" in keys else df.rename(columns={"_v": col})
    return reduce(df, spec["column"], spec.get("agg", "first"))


def fmt(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{x:.3g}"
    if isinstance(x, (np.integer,)):
        return str(int(x))
    return str(x)


def _levels(check: dict, tables) -> list:
    spec = check["value"] if "value" in check else check["greater"][0]
    df = select(tables[spec["table"]], spec.get("where"))
    return list(dict.fromkeys(df[check["per"]].tolist()))


def _check_once(check: dict, tables, extra_where=None) -> tuple[bool, str]:
    if "value" in check:
        v = value(check["value"], tables, extra_where)
        if check["op"] in (">=", "<=") and v == check["threshold"]:  # a tie never holds (">" and "<" refuse it anyway)
            return False, f"{fmt(v)} (tie with the threshold)"
        return bool(OPS[check["op"]](v, check["threshold"])), fmt(v)
    values = [value(spec, tables, extra_where) for spec in check["greater"]]
    margin = check.get("margin", 0.0)
    ok = all(a > b + margin for a, b in zip(values, values[1:]))
    return ok, (" > " if ok else " vs ").join(distinct_texts(values))


def distinct_texts(values: list) -> list[str]:
    """``fmt`` of each value, with more digits where two different values would print alike
    (0.05652 and 0.05648 both print as 0.0565)."""
    texts = [fmt(v) for v in values]
    for digits in (4, 5, 6, 8):
        clash = any(t == u and v != w for t, u, v, w in zip(texts, texts[1:], values, values[1:]))
        if not clash:
            break
        texts = [f"{v:.{digits}g}" if isinstance(v, float | np.floating) else fmt(v) for v in values]
    return texts


def run_check(check: dict, tables, skip=frozenset()) -> tuple[bool, str]:
    """(holds, our value as text); with ``per``, every level (but those in ``skip``) must hold."""
    if not check.get("per"):
        return _check_once(check, tables)
    levels = [level for level in _levels(check, tables) if level not in skip]
    results = [(level, *_check_once(check, tables, {check["per"]: level})) for level in levels]
    if not results:
        raise NoRows(f"no level of {check['per']!r}")
    return all(ok for _, ok, _ in results), "; ".join(f"{lvl}: {text}" for lvl, _, text in results)


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


def load_tables(stems, table_dir: Path) -> dict[str, pd.DataFrame]:
    """The tables that exist under ``table_dir`` (``<stem>.csv``), with depth columns added."""
    out = {}
    for stem in stems:
        path = Path(table_dir) / f"{stem}.csv"
        if path.exists():
            out[stem] = with_depth(pd.read_csv(path))
    return out


def evaluate_claim(claim: dict, tables: dict[str, pd.DataFrame], not_selected: set[str] = frozenset()) -> Outcome:
    """The verdict of one claim on one model's tables."""
    missing = [t for t in tables_read(claim) if t not in tables]
    if missing:
        why = "not selected (scorecard.rules)" if {m.split(".")[0] for m in missing} & not_selected else "not produced"
        return Outcome("not run", reason=f"table {', '.join(missing)} {why}")
    premise = claim.get("applies_if")
    try:
        if premise:
            ok, text = run_check(premise, tables)
            if not ok:
                return Outcome("not applicable", reason=f"{premise['reason']} (measured: {text})")
        not_learnt, skip = _not_learnt(claim, tables)
        if not_learnt:
            return not_learnt
        ok, text = run_check(claim["check"], tables, skip)
    except NoRows as e:
        if claim.get("optional"):
            return Outcome("not run", reason=f"{e}: {claim['optional']}")
        raise ClaimError(
            f"claim {claim['id']}: {e}; fix its where, or say why its rows may be absent with `optional: <why>`"
        ) from None
    left_out = "; ".join(skip.values())
    reason = f"left out, not learnt: {left_out}" if left_out else ""
    return Outcome("holds" if ok else "does not hold", our_value=text, reason=reason)
