"""Clark et al. 2019 Table 1 from a :class:`analysis.clark.dep_heads.DepScorer`: the best head per
relation and direction beside the best fixed-offset baseline and the paper's numbers, and the
cells of the per-head heat-map grid."""

from __future__ import annotations

import pandas as pd

from analysis.clark.dep_heads import ALL, DepScorer


def paper_table(path) -> pd.DataFrame:
    """The paper's Table 1 (config/paper_numbers/clark_table1.csv)."""
    df = pd.read_csv(path, comment="#")
    need = {"relation", "paper_direction", "paper_head", "paper_accuracy", "paper_baseline"}
    if not need <= set(df.columns):
        raise ValueError(f"{path}: needs columns {sorted(need)}, has {list(df.columns)}")
    return df


def table1(sc: DepScorer, paper, min_count: int, counts: dict | None = None):
    """(main, rare): the Table-1-style rows per relation and direction, relations with
    ``n >= min_count`` in ``main`` (``All`` first, then by n), the others in ``rare``."""
    df = pd.DataFrame(sc.summary()).rename(columns={"best_layer": "layer", "best_head": "head"})
    # the better direction of each relation (ties: dep->head)
    best = df.loc[df.groupby("relation", sort=False)["accuracy"].idxmax()]
    df["best_direction"] = df.index.isin(best.index)
    lost = (counts or {}).get("arcs_lost_by_relation", {})
    df["n_unscored"] = [lost.get(r, 0) if r != ALL else (counts or {}).get("arcs_lost", 0) for r in df["relation"]]
    if paper is not None:
        df = df.merge(paper, on="relation", how="left")
    df["_all"] = df["relation"] != ALL
    df = df.sort_values(["_all", "n", "relation", "direction"], ascending=[True, False, True, True]).drop(
        columns="_all"
    )
    df = df.reset_index(drop=True)
    return df[df["n"] >= min_count].reset_index(drop=True), df[df["n"] < min_count].reset_index(drop=True)


def grid_table(full, main, relations: list[str]) -> pd.DataFrame:
    """The cells of the heat-map grid as a tidy table: for ``All`` and every listed relation
    present in ``main``, each head's accuracy in the relation's better direction, with the
    panel's best head (``best``) and its fixed-offset baseline. Layers/heads 1-indexed."""
    present = set(main["relation"])
    parts = []
    for rel in [r for r in [ALL, *relations] if r in present]:
        row = main[(main["relation"] == rel) & main["best_direction"]].iloc[0]
        sub = full[(full["relation"] == rel) & (full["direction"] == row["direction"])]
        sub = sub[["relation", "direction", "layer", "head", "accuracy", "n"]].copy()
        sub["best"] = (sub["layer"] == row["layer"]) & (sub["head"] == row["head"])
        sub["best_offset"] = int(row["best_offset"])
        sub["baseline_accuracy"] = float(row["baseline_accuracy"])
        parts.append(sub.sort_values(["layer", "head"]))
    cols = ["relation", "direction", "layer", "head", "accuracy", "n", "best", "best_offset", "baseline_accuracy"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
