"""Replicates of Clark et al.'s Table 1 for the scorecard's intervals: the best head's and the best
fixed offset's accuracy per relation and direction, recomputed on bootstrap resamples of the
sentences (the independent unit: a sentence's arcs share its words and maps).

A replicate draws as many sentences as were scored, with replacement
(:func:`analysis.shared.bootstrap.unit_weights`); its tallies are the weighted sums of the
sentences' own tallies (:attr:`analysis.clark.syntax.scorer.DepScorer.by_sentence`), and the best head
and the best offset are chosen again in every replicate, as in the point table (so the interval
includes the choice of the best of all heads)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.clark.syntax.scorer import DIRECTIONS, DepScorer


def sentence_tallies(sc: DepScorer, relation: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(sentence index, hits (S, 2, L*H), baseline (S, 2, n_offsets), n (S,)) of the sentences with an
    arc of ``relation``; sentence indices in the order of ``sc.by_sentence``."""
    idx, hits, base, n = [], [], [], []
    for i, tallies in enumerate(sc.by_sentence.values()):
        if relation in tallies:
            h, b, k = tallies[relation]
            idx.append(i)
            hits.append(h.reshape(2, -1))
            base.append(b)
            n.append(k)
    return np.array(idx, dtype=int), np.array(hits), np.array(base), np.array(n)


def table1_replicates(sc: DepScorer, relations: list[str], weights: np.ndarray) -> pd.DataFrame:
    """Rows (replicate, relation, direction, accuracy, baseline_accuracy, n) for every replicate's
    sentence weights (``weights``: (B, sentences in ``sc.by_sentence``)); a relation whose arcs a
    replicate does not draw has no row in it."""
    parts = []
    for rel in relations:
        idx, hits, base, n = sentence_tallies(sc, rel)
        w = weights[:, idx].astype(np.float64)  # (B, S_rel)
        n_b = w @ n  # (B,)
        best_head = np.einsum("bs,sdk->bdk", w, hits).max(-1)  # (B, 2)
        best_offset = np.einsum("bs,sdk->bdk", w, base).max(-1)
        drawn = n_b > 0
        for di, direction in enumerate(DIRECTIONS):
            parts.append(
                pd.DataFrame(
                    {
                        "replicate": np.flatnonzero(drawn),
                        "relation": rel,
                        "direction": direction,
                        "accuracy": best_head[drawn, di] / n_b[drawn],
                        "baseline_accuracy": best_offset[drawn, di] / n_b[drawn],
                        "n": n_b[drawn].astype(int),
                    }
                )
            )
    cols = ["replicate", "relation", "direction", "accuracy", "baseline_accuracy", "n"]
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
    return out.sort_values(["replicate", "relation", "direction"], kind="stable").reset_index(drop=True)[cols]
