"""The values a claim's check reads from a model's tables (see :mod:`analysis.scorecard.evaluate`):
rows chosen by ``where`` / ``query``, optionally averaged per group, reduced by ``agg``; on the
table itself, or on each replicate of its replicate table (``<stem>.boot.csv``) for the interval."""

from __future__ import annotations

import operator

import numpy as np
import pandas as pd
from scipy import stats

REPLICATE = "replicate"  # the column of a replicate table (<stem>.boot.csv)
OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq}
AGGS = ("max", "min", "mean", "median", "sum", "count", "first")


TIE = "tie"  # an argmax / argmin with several rows at the extreme: no single level is the largest


class NoRows(ValueError):
    """A value's ``where`` matched no row of its table."""


def specs_of(check: dict | None) -> list[dict]:
    """The values a check (or premise) reads: its ``value``, or the members of its ``greater``."""
    if not check:
        return []
    return [check["value"]] if "value" in check else list(check.get("greater", []))


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
    """The rows matching every condition of ``where``."""
    mask = pd.Series(True, index=df.index)
    for col, condition in (where or {}).items():
        if col not in df.columns:
            raise KeyError(f"column {col!r} not in table (columns: {', '.join(df.columns)})")
        mask &= _match(df[col], condition)
    return df[mask]


def absent_members(specs, tables) -> list[str]:
    """``column = member`` for every member of a ``where`` list that matches no row of its table
    (e.g. an encoder this run did not train): said in the claim's reason, never dropped silently."""
    found = []
    for spec in specs:
        df = tables.get(spec["table"])
        for col, condition in (spec.get("where") or {}).items():
            if df is not None and col in df.columns and isinstance(condition, list):
                found += [f"{col} = {m}" for m in condition if not _match(df[col], m).any()]
    return list(dict.fromkeys(found))


def absent_levels(check: dict, tables) -> list:
    """The levels of a per-level check's ``per`` column that its ``where`` names in a list and no row
    has (e.g. an encoder this run did not train): counted in "holds on u of n"."""
    per = check.get("per")
    found = []
    for spec in specs_of(check):
        df, named = tables.get(spec["table"]), (spec.get("where") or {}).get(per)
        if per and df is not None and per in df.columns and isinstance(named, list):
            found += [m for m in named if not _match(df[per], m).any()]
    return list(dict.fromkeys(found))


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
        extreme = values.max() if kind == "argmax" else values.min()
        at = values.index[values == extreme]
        if len(set(df.loc[at, of])) > 1:
            return f"{TIE}: {' / '.join(map(str, dict.fromkeys(df.loc[at, of])))}"
        return df.loc[at[0], of]
    if agg == "count":
        return int(len(df))
    if agg not in AGGS:
        raise ValueError(f"unknown agg {agg!r}; known: {AGGS} and argmax:<col>, argmin:<col>")
    return values.iloc[0] if agg == "first" else float(getattr(values, agg)())


def value(spec: dict, tables: dict[str, pd.DataFrame], extra_where: dict | None = None):
    """One value of a check (see the module docstring): the table itself read as one more replicate,
    so the point value and every replicate's come from one path (:func:`replicate_values`)."""
    where = {**spec.get("where", {}), **(extra_where or {})}
    df = select(tables[spec["table"]], where)
    if spec.get("query"):  # conditions between columns, e.g. "layer_a == layer_b"
        df = df.query(spec["query"])
    if df.empty and spec.get("agg") == "count":
        return 0
    if df.empty:
        raise NoRows(f"no row of {spec['table']} matches {where}")
    point = {spec["table"]: df.assign(**{REPLICATE: 0})}
    got = replicate_values({k: v for k, v in spec.items() if k not in ("where", "query")}, point).iloc[0]
    return int(got) if spec.get("agg") == "count" else got


def replicate_values(spec: dict, boots: dict[str, pd.DataFrame], extra_where: dict | None = None) -> pd.Series | None:
    """The value of ``spec`` on every replicate of its table (index: replicate; NaN where a
    replicate has no matching row), or None when the table has no replicates."""
    boot = boots.get(spec["table"])
    if boot is None:
        return None
    ids = pd.Index(sorted(boot[REPLICATE].unique()), name=REPLICATE)
    df = select(boot, {**spec.get("where", {}), **(extra_where or {})})
    if spec.get("query"):
        df = df.query(spec["query"])
    col, agg = spec["column"], spec.get("agg", "first")
    if spec.get("group_by"):
        keys = [REPLICATE, *spec["group_by"]]
        grouped = df.assign(_v=pd.to_numeric(column_values(df, col), errors="coerce"))
        df = grouped.groupby(keys, as_index=False)["_v"].agg(spec.get("group_agg", "mean"))
        df = with_depth(df.rename(columns={"_v": col})) if "layer" in keys else df.rename(columns={"_v": col})
    if agg == "count":
        return df.groupby(REPLICATE).size().reindex(ids, fill_value=0).astype(float)
    values = column_values(df, col) if len(df) else pd.Series(dtype=float)
    values = values if agg == "first" else pd.to_numeric(values, errors="coerce")
    by = df[REPLICATE] if len(df) else pd.Series(dtype=int)
    if agg.startswith(("argmax:", "argmin:")):
        kind, of = agg.split(":", 1)
        part = pd.DataFrame(
            {REPLICATE: by.to_numpy(), "_v": values.to_numpy(), "_of": df[of].to_numpy() if len(df) else []}
        )
        return (
            part.groupby(REPLICATE)
            .apply(lambda g: reduce(g.rename(columns={"_of": of}), "_v", agg), include_groups=False)
            .reindex(ids)
        )
    if agg not in AGGS:
        raise ValueError(f"unknown agg {agg!r}; known: {AGGS} and argmax:<col>, argmin:<col>")
    if agg == "first":  # the first row's value, missing or not (pandas' first skips missing ones)
        return values.groupby(by).nth(0).set_axis(by.drop_duplicates().to_numpy()).reindex(ids)
    return values.groupby(by).agg(agg).reindex(ids)


def interval_of(reps: pd.Series, share: float = 0.975) -> tuple:
    """The (1 - share)th and share-th quantiles of numeric replicate values (NaN ones left out):
    the 2.5th and 97.5th percentiles by default."""
    x = pd.to_numeric(reps, errors="coerce").dropna()
    return (float(np.quantile(x, 1 - share)), float(np.quantile(x, share))) if len(x) else (np.nan, np.nan)


def basic(reps: pd.Series, point) -> pd.Series:
    """The replicates reflected about the point value (2 x point - replicate): their percentiles are
    the basic bootstrap interval, which removes a bias the replicates show about the point (an
    in-sample maximum's replicates lean upwards by the bias of the max: the reflection moves the
    interval down by as much)."""
    return 2 * float(point) - pd.to_numeric(reps, errors="coerce")


NORMAL = stats.norm


def bias_corrected(reps: pd.Series, point) -> pd.Series:
    """The replicates remapped so that their percentiles are Efron's bias-corrected percentile
    interval: with z0 = Phi^-1(share of replicates below the point, ties counted half), the
    replicate at quantile u moves to the replicates' quantile Phi(Phi^-1(u) + 2 z0). Replicates
    centred on the point (z0 = 0) are left as they are; a skewed ratio or a maximum whose
    replicates lean to one side of the point has its interval moved back by that lean."""
    x = pd.to_numeric(reps, errors="coerce")
    ok = x.notna()
    v = x[ok].to_numpy(dtype=float)
    if len(v) < 2:
        return x
    below = (np.sum(v < float(point)) + 0.5 * np.sum(v == float(point))) / len(v)
    z0 = NORMAL.ppf(np.clip(below, 0.5 / len(v), 1 - 0.5 / len(v)))
    u = (stats.rankdata(v) - 0.5) / len(v)
    out = x.copy()
    out[ok] = np.quantile(v, NORMAL.cdf(NORMAL.ppf(u) + 2 * z0), method="inverted_cdf")  # z0 = 0: unchanged
    return out


def as_interval(kind: str | None, reps: pd.Series, point) -> pd.Series:
    """The replicates whose percentiles make a claim's ``interval``: as they are (percentile, the
    default), :func:`basic` or :func:`bias_corrected` (``bc``); a categorical value's as they are."""
    if isinstance(point, str) or kind in (None, "percentile", "t"):  # t: the percentiles read as a t
        return reps
    return basic(reps, point) if kind == "basic" else bias_corrected(reps, point)


def holds(v, op: str, threshold) -> bool:
    """``v op threshold``; a tie (an undecided argmax, TIE) never holds."""
    if isinstance(v, str) and v.startswith(TIE):
        return False
    return bool(OPS[op](v, threshold))


def strength_of(v, op: str, threshold) -> float:
    """How far ``v`` is on the claim's side of ``threshold`` (> 0 where ``v op threshold`` holds
    strictly); NaN for a categorical value."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return np.nan
    return v - threshold if op in (">", ">=") else threshold - v if op in ("<", "<=") else np.nan


def side(op: str) -> int:
    """+1 for a claim that a value is above its threshold, -1 below, 0 for ``==``."""
    return 1 if op in (">", ">=") else -1 if op in ("<", "<=") else 0
