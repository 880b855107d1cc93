"""Replicates of Clark et al.'s Table 1 for the scorecard's intervals: the best head's and the best
fixed offset's accuracy per relation and direction, recomputed on bootstrap resamples of the
documents (the independent unit: a document's sentences share topic, genre and writer; the
sentence where a corpus has one document, see :func:`analysis.clark.syntax.heldout.sentence_clusters`).

A resample draws as many documents as were scored, with replacement, each with all its sentences
(:func:`analysis.shared.bootstrap.cluster_weights`); its tallies are the weighted sums of the
sentences' own tallies (:attr:`analysis.clark.syntax.scorer.DepScorer.by_sentence`), and the best head
and the best offset are chosen again in every resample, as in the point table (so the interval
includes the choice of the best of all heads)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.clark.syntax.heldout import heldout_arrays, sentence_tallies, weighted_sums
from analysis.clark.syntax.scorer import DIRECTIONS, DepScorer

__all__ = ["sentence_tallies", "table1_replicates"]


def table1_replicates(
    sc: DepScorer, relations: list[str], weights: np.ndarray, folds: np.ndarray | None = None
) -> pd.DataFrame:
    """Rows (replicate, relation, direction, accuracy, baseline_accuracy, n) for every resample's
    sentence weights (``weights``: (B, sentences in ``sc.by_sentence``), e.g. documents drawn
    whole: every ratio is over the resample's own weighted arcs); a relation whose arcs a
    replicate does not draw has no row in it. With ``folds`` (0/1 per sentence), also
    ``heldout_accuracy`` and ``heldout_baseline_accuracy``: the best head and offset chosen on one
    half and scored on the other, chosen again in each resample
    (:mod:`analysis.clark.syntax.heldout`); NaN where a resample draws no arc of the relation in
    one half."""
    parts = []
    for rel in relations:
        idx, hits, base, n = sentence_tallies(sc, rel)
        w = weights[:, idx].astype(np.float64)  # (B, S_rel)
        n_b = w @ n  # (B,)
        best_head = weighted_sums(w, hits).max(-1)  # (B, 2)
        best_offset = weighted_sums(w, base).max(-1)
        drawn = n_b > 0
        if folds is not None:
            _, ho_head, ho_base, _, _, ok = heldout_arrays(sc, rel, folds, weights)
        for di, direction in enumerate(DIRECTIONS):
            frame = {
                "replicate": np.flatnonzero(drawn),
                "relation": rel,
                "direction": direction,
                "accuracy": best_head[drawn, di] / n_b[drawn],
                "baseline_accuracy": best_offset[drawn, di] / n_b[drawn],
                "n": n_b[drawn].astype(int),
            }
            if folds is not None:
                frame["heldout_accuracy"] = np.where(ok, ho_head[:, di], np.nan)[drawn] / n_b[drawn]
                frame["heldout_baseline_accuracy"] = np.where(ok, ho_base[:, di], np.nan)[drawn] / n_b[drawn]
            parts.append(pd.DataFrame(frame))
    cols = ["replicate", "relation", "direction", "accuracy", "baseline_accuracy", "n"]
    if folds is not None:
        cols += ["heldout_accuracy", "heldout_baseline_accuracy"]
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
    return out.sort_values(["replicate", "relation", "direction"], kind="stable").reset_index(drop=True)[cols]
