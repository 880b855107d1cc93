"""GAP pronoun -> name accuracy per attention head (an extra to Clark et al. sec. 4.3).

For every GAP example whose pronoun corefers with exactly one of the two candidate names A
and B, a head is right when the pronoun attends more (word-level maps, ``analysis.core.word_level``)
to the head word of the right name than to the other's (ties go to A, the first name).
Baselines: ``nearest`` (the name whose head word is closer to the pronoun, ties -> A),
``nearest_preceding`` (the closest name before the pronoun, else the nearest) and ``first_name``
(always A). Results by pronoun gender (GAP is balanced: masculine / feminine).
Examples labelled neither or both are counted, not scored. The best head is also reported
2-fold (chosen on one half of the examples, by a hash of the id, scored on the other).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from analysis.clark.coref.head_tally import HeadTally
from analysis.core.word_level import unit_of_word, word_maps
from analysis.shared.head_selection import fold_of

GROUPS = ("all", "masculine", "feminine")
SYSTEM_LABELS = {
    "nearest": "nearest name",
    "nearest_preceding": "nearest preceding name",
    "first_name": "first name (A)",
}


def baseline_picks(meta: dict) -> dict:
    """system -> 'A' | 'B'."""
    p, a, b = meta["pronoun"], meta["a_head"], meta["b_head"]
    nearest = "A" if abs(a - p) <= abs(b - p) else "B"
    before = [(p - h, n) for h, n in ((a, "A"), (b, "B")) if h < p]
    preceding = min(before)[1] if before else nearest
    return {"nearest": nearest, "nearest_preceding": preceding, "first_name": "A"}


def head_picks_a(word_map: np.ndarray, unit_word: np.ndarray, meta: dict) -> np.ndarray:
    """(layers, heads) bool: True where the pronoun attends at least as much to A's head as to B's."""
    unit_of = unit_of_word(unit_word)
    p, a, b = unit_of[meta["pronoun"]], unit_of[meta["a_head"]], unit_of[meta["b_head"]]
    return word_map[:, :, p, a] >= word_map[:, :, p, b]


def score(examples: Iterable, n_layers: int, n_heads: int, how: str = "mean") -> tuple[HeadTally, dict]:
    """Tally every scored example (examples from ``storage.Shards``) by gender; the rest counted."""
    tally = HeadTally(n_layers, n_heads, GROUPS, "gender", SYSTEM_LABELS)
    counts: dict = {"examples": 0, "scored": 0, "not_scored_neither": 0, "not_scored_both": 0}
    for ex in examples:
        counts["examples"] += 1
        meta = ex.meta
        if "part" in meta or meta.get("truncated"):
            raise ValueError(f"example {ex.id}: split or truncated at extraction; prepare with the same max_len")
        if meta["label"] not in ("A", "B"):
            counts[f"not_scored_{meta['label']}"] += 1
            continue
        counts["scored"] += 1
        wm, uw = word_maps(ex.attn, ex.word_ids, how)
        picks_a = head_picks_a(wm, uw, meta)
        right = picks_a if meta["label"] == "A" else ~picks_a
        baseline_right = {s: pick == meta["label"] for s, pick in baseline_picks(meta).items()}
        groups = [g for g in ("all", meta["gender"]) if g in GROUPS]
        tally.count(groups, right, fold_of(str(ex.id)), baseline_right)
    return tally, counts
