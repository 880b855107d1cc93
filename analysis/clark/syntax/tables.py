"""Clark et al. 2019 Table 1 from a :class:`analysis.clark.syntax.scorer.DepScorer`: every head's and
every offset's accuracy per relation and direction, the best head per relation and direction
beside the best fixed-offset baseline and the paper's numbers, and the cells of the per-head
heat-map grid."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.clark.syntax.scorer import ALL, ALL_NO_ROOT, ALL_ROWS, DIRECTIONS, DepScorer, rel_key


def tidy(sc: DepScorer) -> list[dict]:
    """Rows (layer, head, relation, direction, accuracy, correct, n), 1-indexed heads."""
    L, H = sc.shape
    return [
        {
            "layer": layer + 1,
            "head": head + 1,
            "relation": rel,
            "direction": direction,
            "accuracy": int(sc.correct[rel][di, layer, head]) / sc.n[rel],
            "correct": int(sc.correct[rel][di, layer, head]),
            "n": sc.n[rel],
        }
        for rel in sorted(sc.correct, key=rel_key)
        for di, direction in enumerate(DIRECTIONS)
        for layer in range(L)
        for head in range(H)
    ]


def baselines(sc: DepScorer) -> list[dict]:
    """Rows (relation, direction, offset, accuracy, correct, n): every fixed offset."""
    return [
        {
            "relation": rel,
            "direction": direction,
            "offset": o,
            "accuracy": int(sc.base[rel][di, k]) / sc.n[rel],
            "correct": int(sc.base[rel][di, k]),
            "n": sc.n[rel],
        }
        for rel in sorted(sc.base, key=rel_key)
        for di, direction in enumerate(DIRECTIONS)
        for k, o in enumerate(sc.offsets)
    ]


def summary(sc: DepScorer) -> list[dict]:
    """Per relation and direction: the best head, its accuracy, the best offset and the
    baseline's accuracy (ties: lowest layer, then head; smallest |offset|, then negative)."""
    rows = []
    H = sc.shape[1]
    for rel in sorted(sc.correct, key=rel_key):
        for di, direction in enumerate(DIRECTIONS):
            acc = sc.correct[rel][di]
            layer, head = divmod(int(np.argmax(acc.ravel())), H)
            kb = min(range(len(sc.offsets)), key=lambda k: (-sc.base[rel][di, k], abs(sc.offsets[k]), sc.offsets[k]))
            rows.append(
                {
                    "relation": rel,
                    "direction": direction,
                    "best_layer": layer + 1,
                    "best_head": head + 1,
                    "accuracy": acc[layer, head] / sc.n[rel],
                    "best_offset": sc.offsets[kb],
                    "baseline_accuracy": sc.base[rel][di, kb] / sc.n[rel],
                    "n": sc.n[rel],
                }
            )
    return rows


def paper_table(path) -> pd.DataFrame:
    """The paper's Table 1 (config/paper_numbers/clark_table1.csv)."""
    df = pd.read_csv(path, comment="#")
    need = {"relation", "paper_direction", "paper_head", "paper_accuracy", "paper_baseline"}
    if not need <= set(df.columns):
        raise ValueError(f"{path}: needs columns {sorted(need)}, has {list(df.columns)}")
    return df


def table1(sc: DepScorer, paper, min_count: int, counts: dict | None = None):
    """(main, rare): the Table-1-style rows per relation and direction, relations with
    ``n >= min_count`` in ``main`` (``All``, the paper's row with the root arcs, first, then
    ``All (no root)``, then by n), the others in ``rare``. The paper's numbers sit beside the
    relations it lists (``All`` beside ``All`` only)."""
    df = pd.DataFrame(summary(sc)).rename(columns={"best_layer": "layer", "best_head": "head"})
    # the better direction of each relation (ties: dep->head)
    best = df.loc[df.groupby("relation", sort=False)["accuracy"].idxmax()]
    df["best_direction"] = df.index.isin(best.index)
    counts = counts or {}
    lost = dict(counts.get("arcs_lost_by_relation", {}))
    lost[ALL_NO_ROOT] = counts.get("arcs_lost", 0)
    lost[ALL] = lost[ALL_NO_ROOT] + counts.get("root_arcs_lost", 0)
    df["n_unscored"] = [lost.get(r, 0) for r in df["relation"]]
    if paper is not None:
        df = df.merge(paper, on="relation", how="left")
    df["_rank"] = [ALL_ROWS.index(r) if r in ALL_ROWS else len(ALL_ROWS) for r in df["relation"]]
    df = df.sort_values(["_rank", "n", "relation", "direction"], ascending=[True, False, True, True])
    df = df.drop(columns="_rank").reset_index(drop=True)
    return df[df["n"] >= min_count].reset_index(drop=True), df[df["n"] < min_count].reset_index(drop=True)


def grid_table(full, main, relations: list[str]) -> pd.DataFrame:
    """The cells of the heat-map grid as a tidy table: for ``All`` (the paper's row) and every
    listed relation present in ``main``, each head's accuracy in the relation's better
    direction, with the panel's best head (``best``) and its fixed-offset baseline. Layers/heads
    1-indexed."""
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
