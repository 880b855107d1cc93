"""Clark et al.'s Table 1 with the best head and the best offset chosen on held-out data, and the
clusters of the scorecard's resamples.

The paper's best head is the max over every head on the sentences it is scored on; a max flatters
itself (winner's curse) and its percentile bootstrap leans towards "holds" near a threshold. Here
the corpus's documents are split in two halves (seeded, balanced by documents; by sentence when
the corpus has a single document); on each half the head (and the offset) is the one best on the
*other* half, and the two halves' hits are pooled: ``heldout_accuracy`` = (hits of half 0 with the
choice of half 1 + hits of half 1 with the choice of half 0) / all arcs (cross-fitting). The same
is done in every bootstrap resample with its weights, the choice made again inside it.

Ties as in :func:`analysis.clark.syntax.tables.summary`: lowest layer, then head; smallest
|offset|, then the negative one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.clark.syntax.scorer import DIRECTIONS, DepScorer, rel_key

HELDOUT_COLUMNS = ["heldout_heads", "heldout_accuracy", "heldout_offsets", "heldout_baseline_accuracy"]


def document_of(sentence: str) -> str:
    """The document of a dependency sentence id ``<doc>:<sent>`` (``#part`` suffix ignored)."""
    return sentence.split("#", 1)[0].rsplit(":", 1)[0]


def document_clusters(sentences, docs: dict | None = None) -> tuple[list[str], str]:
    """(the cluster of every sentence id in ``sentences``, in its order; its name): the sentence's
    document (``docs``, else from its id ``<doc>:<sent>``), or the sentence itself when they come
    from fewer than two documents (a corpus read as one file, e.g. UD EWT's single .conllu)."""
    sentences = list(sentences)
    docs = docs or {}
    clusters = [str(docs.get(s, document_of(s))) for s in sentences]
    if len(set(clusters)) >= 2:
        return clusters, "document"
    return sentences, "sentence"


def sentence_clusters(sc: DepScorer) -> tuple[list[str], str]:
    """:func:`document_clusters` of the sentences of ``sc.by_sentence`` (documents from ``sc.docs``)."""
    return document_clusters(sc.by_sentence, getattr(sc, "docs", {}))


def two_folds(clusters, seed: int) -> np.ndarray:
    """(n_units,) 0/1: a seeded split of the distinct clusters into two halves (the first
    ceil(k/2) of a seeded permutation of the sorted keys are half 0), per unit."""
    keys = sorted(set(clusters))
    order = np.random.default_rng(seed).permutation(len(keys))
    half = {keys[i]: int(rank >= (len(keys) + 1) // 2) for rank, i in enumerate(order)}
    return np.array([half[c] for c in clusters], dtype=np.int64)


def _offset_priority(offsets) -> np.ndarray:
    """Offset indices in tie-break order: smallest |offset|, then the negative one."""
    return np.array(sorted(range(len(offsets)), key=lambda k: (abs(offsets[k]), offsets[k])), dtype=np.int64)


def weighted_sums(weights: np.ndarray, tallies: np.ndarray) -> np.ndarray:
    """(B, D, K): each resample's weighted sum of the units' tallies (``weights`` (B, S), ``tallies``
    (S, D, K)), as one matrix product (BLAS; an einsum over these shapes runs ~5x slower). Counts
    and whole-number weights sum exactly in float64, so the order of the sums changes no digit."""
    flat = np.asarray(tallies, dtype=np.float64).reshape(len(tallies), -1)
    return (np.asarray(weights, dtype=np.float64) @ flat).reshape(len(weights), *np.shape(tallies)[1:])


def cross_fit(hits: np.ndarray, fold: np.ndarray, weights: np.ndarray):
    """Held-out correct counts of the best column chosen on the other half.

    ``hits`` (S, D, K): each unit's correct counts per direction and candidate (head / offset, in
    tie-break order: the first max is chosen); ``fold`` (S,) 0/1; ``weights`` (B, S). Returns
    (correct (B, D): half 0 scored with the choice of half 1 plus half 1 with the choice of half 0,
    chosen (B, 2, D): the column chosen on half 1 (for half 0) and on half 0 (for half 1))."""
    w = np.asarray(weights, dtype=np.float64)
    per_half = [weighted_sums(w * (fold == f), hits) for f in (0, 1)]  # (B, D, K) each
    chosen = np.stack([per_half[1].argmax(-1), per_half[0].argmax(-1)], axis=1)  # (B, 2, D)
    correct = sum(np.take_along_axis(per_half[f], chosen[:, f, :, None], -1)[..., 0] for f in (0, 1))
    return correct, chosen


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


def heldout_arrays(sc: DepScorer, relation: str, fold: np.ndarray, weights: np.ndarray):
    """Per resample (rows of ``weights`` (B, sentences)) for ``relation``: (n (B,), held-out head
    correct (B, 2), held-out offset correct (B, 2), chosen heads (B, 2, 2), chosen offset indices
    into ``sc.offsets`` (B, 2, 2), ok (B,): both halves hold arcs of the relation)."""
    idx, hits, base, n = sentence_tallies(sc, relation)
    w = np.asarray(weights, dtype=np.float64)[:, idx]
    rel_fold = fold[idx]
    # ok: both halves hold arcs of this relation
    n_half = np.stack([(w * (rel_fold == f)) @ n for f in (0, 1)], 1)
    ok = (n_half > 0).all(1)
    head_correct, heads = cross_fit(hits, rel_fold, w)
    prio = _offset_priority(sc.offsets)
    base_correct, offs = cross_fit(base[..., prio], rel_fold, w)
    return w @ n, head_correct, base_correct, heads, prio[offs], ok


def heldout_table(sc: DepScorer, fold: np.ndarray) -> pd.DataFrame:
    """Rows (relation, direction, heldout_heads ``"L-H/L-H"``: the head scored on half 0 (chosen on
    half 1) / on half 1, heldout_accuracy, heldout_offsets ``"o/o"``, heldout_baseline_accuracy) of
    every relation and direction; NaN where a half has no arc of the relation."""
    H = sc.shape[1]
    rows = []
    for rel in sorted(sc.correct, key=rel_key):
        n, hc, bc, heads, offs, ok = heldout_arrays(sc, rel, fold, np.ones((1, len(sc.by_sentence))))
        for di, direction in enumerate(DIRECTIONS):
            good = bool(ok[0]) and n[0] > 0
            rows.append(
                {
                    "relation": rel,
                    "direction": direction,
                    "heldout_heads": "/".join(f"{k // H + 1}-{k % H + 1}" for k in heads[0, :, di]) if good else "",
                    "heldout_accuracy": hc[0, di] / n[0] if good else np.nan,
                    "heldout_offsets": "/".join(str(sc.offsets[k]) for k in offs[0, :, di]) if good else "",
                    "heldout_baseline_accuracy": bc[0, di] / n[0] if good else np.nan,
                }
            )
    return pd.DataFrame(rows, columns=["relation", "direction", *HELDOUT_COLUMNS])


def with_heldout(table: pd.DataFrame, heldout: pd.DataFrame) -> pd.DataFrame:
    """``table`` (rows and order kept) with the held-out columns of its relations and directions."""
    out = table.merge(heldout, on=["relation", "direction"], how="left")
    out["heldout_heads"] = out["heldout_heads"].fillna("")
    out["heldout_offsets"] = out["heldout_offsets"].fillna("")
    return out
