"""Clark et al.'s Table 1 with the best head, the best offset and their directions chosen on another
corpus (config ``clark_syntax.select_on``, e.g. GUM SD train for GUM SD dev) and scored on every
document of the scored corpus.

The paper's best head is the best of every head and of both directions on the sentences it is
scored on: a max that flatters itself (winner's curse). :mod:`analysis.clark.syntax.heldout`
cross-fits the head over two halves of the scored documents but leaves the direction to the
scored data. Here the whole choice is made on the selection corpus's own Table 1 tables
(``dep_heads.full.<corpus>`` and ``dep_heads.baselines.<corpus>``), per relation:

- the head and its direction with the most correct arcs there (ties: dep->head, then the lowest
  layer, then the lowest head: as the in-sample table, which takes the best head per direction
  with the lowest layer and head, and dep->head where the two directions tie);
- the fixed offset and its direction with the most correct arcs there, chosen apart from the head's
  (ties: dep->head, then the smallest |offset|, then the negative one, as the in-sample table).

That one choice is then scored on the scored corpus: ``selected_accuracy`` (the chosen head in the
chosen direction) and ``selected_baseline_accuracy`` (the chosen offset in its direction). Their
bootstrap resamples draw the scored corpus's documents and score the same choice on each: the
selection data are fixed and never resampled, so nothing is chosen again inside a resample (the
interval is about the scored documents, given the choice; a choice made on other data carries no
winner's curse into them). A relation the selection corpus lacks has no choice: its selected
columns are NaN (its head and direction empty) and it is counted in the sidecar
(:func:`selection_counts`), never filled from the scored data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.clark.syntax.heldout import sentence_tallies
from analysis.clark.syntax.scorer import DIRECTIONS, DepScorer, rel_key

SELECTED_COLUMNS = [
    "selected_on",
    "selection_n",
    "selected_head",
    "selected_direction",
    "selected_accuracy",
    "selected_offset",
    "selected_baseline_direction",
    "selected_baseline_accuracy",
]
SCORED_COLUMNS = ["selected_accuracy", "selected_baseline_accuracy"]


def _need(df: pd.DataFrame, columns: set, path) -> None:
    if not columns <= set(df.columns):
        raise ValueError(f"{path}: a selection table needs columns {sorted(columns)}, has {list(df.columns)}")


def selection(full: pd.DataFrame, baselines: pd.DataFrame, corpus: str, where=("full", "baselines")) -> pd.DataFrame:
    """One row per relation of the selection corpus's tables (``full``: dep_heads.full, every head;
    ``baselines``: dep_heads.baselines, every offset): layer, head (1-indexed) and direction of the
    head with the most correct arcs, offset and direction of the best offset, ``selection_n`` (the
    relation's arcs there) and ``selected_on`` = ``corpus``; ties as in the module docstring.
    ``where`` names the two tables in errors."""
    _need(full, {"layer", "head", "relation", "direction", "correct", "n"}, where[0])
    _need(baselines, {"relation", "direction", "offset", "correct"}, where[1])
    for df, name in zip((full, baselines), where):
        bad = sorted(set(df["direction"]) - set(DIRECTIONS))
        if bad:
            raise ValueError(f"{name}: unknown directions {bad} (known: {list(DIRECTIONS)})")
    rank = {d: i for i, d in enumerate(DIRECTIONS)}
    heads = full.assign(_d=full["direction"].map(rank), _c=-full["correct"])
    heads = heads.sort_values(["relation", "_c", "_d", "layer", "head"], kind="stable").groupby("relation").head(1)
    offs = baselines.assign(_d=baselines["direction"].map(rank), _c=-baselines["correct"], _a=baselines["offset"].abs())
    offs = offs.sort_values(["relation", "_c", "_d", "_a", "offset"], kind="stable").groupby("relation").head(1)
    out = heads[["relation", "layer", "head", "direction", "n"]].merge(
        offs[["relation", "offset", "direction"]].rename(columns={"direction": "baseline_direction"}),
        on="relation",
        how="left",
    )
    missing = sorted(set(heads["relation"]) - set(offs["relation"]))
    if missing:
        raise ValueError(f"{where[1]}: no offset row for relations {missing} of {where[0]}")
    out = out.rename(columns={"n": "selection_n"}).assign(selected_on=corpus)
    return out.sort_values("relation", key=lambda s: s.map(rel_key)).reset_index(drop=True)


def check_choice(choice: pd.DataFrame, sc: DepScorer, where: str = "the selection") -> None:
    """The choice fits the scored model and baseline: heads inside its layers x heads, offsets among
    the scorer's (the same ``max_offset``); else an error naming ``where``."""
    L, H = sc.shape
    out = choice[(choice["layer"] < 1) | (choice["layer"] > L) | (choice["head"] < 1) | (choice["head"] > H)]
    if len(out):
        named = [f"{a}-{b}" for a, b in zip(out["layer"], out["head"])]
        raise ValueError(f"{where}: heads {named} outside this model's {L} layers x {H} heads (another model's table?)")
    bad = sorted(set(choice["offset"]) - set(sc.offsets))
    if bad:
        raise ValueError(
            f"{where}: offsets {bad} not among the scored offsets {list(sc.offsets)} (max_offset differs?)"
        )


def selected_replicates(sc: DepScorer, choice: pd.DataFrame, weights: np.ndarray) -> pd.DataFrame:
    """Rows (replicate, relation, selected_accuracy, selected_baseline_accuracy) of every relation of
    ``sc`` with an arc drawn in the resample (``weights``: (B, sentences of ``sc.by_sentence``)): the
    choice (:func:`selection`) scored on the resample's weighted arcs, never chosen again; NaN for a
    relation ``choice`` lacks."""
    H = sc.shape[1]
    chosen = choice.set_index("relation")
    w_all = np.asarray(weights, dtype=np.float64)
    parts = []
    for rel in sorted(sc.correct, key=rel_key):
        idx, hits, base, n = sentence_tallies(sc, rel)
        w = w_all[:, idx]
        n_b = w @ n
        drawn = n_b > 0
        if rel in chosen.index:
            c = chosen.loc[rel]
            head = hits[:, DIRECTIONS.index(c["direction"]), (int(c["layer"]) - 1) * H + int(c["head"]) - 1]
            off = base[:, DIRECTIONS.index(c["baseline_direction"]), list(sc.offsets).index(int(c["offset"]))]
            acc, base_acc = (w @ head)[drawn] / n_b[drawn], (w @ off)[drawn] / n_b[drawn]
        else:
            acc = base_acc = np.full(int(drawn.sum()), np.nan)
        parts.append(
            pd.DataFrame(
                {
                    "replicate": np.flatnonzero(drawn),
                    "relation": rel,
                    "selected_accuracy": acc,
                    "selected_baseline_accuracy": base_acc,
                }
            )
        )
    cols = ["replicate", "relation", *SCORED_COLUMNS]
    return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)


def selected_table(sc: DepScorer, choice: pd.DataFrame) -> pd.DataFrame:
    """One row per relation of ``sc``: the choice's columns (:data:`SELECTED_COLUMNS`; head
    ``"L-H"``) and its accuracies on every scored sentence; NaN (head, directions empty) where
    ``choice`` lacks the relation."""
    point = selected_replicates(sc, choice, np.ones((1, len(sc.by_sentence)))).drop(columns="replicate")
    out = point.merge(choice, on="relation", how="left")
    has = out["layer"].notna()
    out["selected_head"] = [f"{int(a)}-{int(b)}" if h else "" for a, b, h in zip(out["layer"], out["head"], has)]
    out = out.rename(columns={"direction": "selected_direction", "baseline_direction": "selected_baseline_direction"})
    out = out.rename(columns={"offset": "selected_offset"})
    for col in ("selected_direction", "selected_baseline_direction", "selected_on"):
        out[col] = out[col].fillna("")
    out["selected_offset"] = out["selected_offset"].astype("Int64")
    out["selection_n"] = out["selection_n"].astype("Int64")
    return out[["relation", *SELECTED_COLUMNS]]


def with_selected(table: pd.DataFrame, selected: pd.DataFrame, on=("relation",)) -> pd.DataFrame:
    """``table`` (rows and order kept) with the selected columns of its relations (on both direction
    rows of a relation: the choice and its accuracy are per relation, its direction one of them)."""
    cols = [c for c in selected.columns if c not in on]
    return table.drop(columns=[c for c in cols if c in table.columns]).merge(selected, on=list(on), how="left")


def selection_counts(sc: DepScorer, choice: pd.DataFrame, corpus: str) -> dict:
    """The sidecar's record: the selection corpus, and the scored relations it has no choice for."""
    missing = sorted(set(sc.correct) - set(choice["relation"]), key=rel_key)
    return {
        "corpus": corpus,
        "relations_scored": len(sc.correct),
        "relations_selected": len(sc.correct) - len(missing),
        "relations_missing": missing,
        "n_missing": len(missing),
    }
