"""Choosing the best attention head honestly: a deterministic 2-fold split of the examples, the
best head chosen on one fold and scored on the other (used by the coreference and GAP heads;
picking the best of many heads on the scored data itself flatters it)."""

from __future__ import annotations

import zlib

import numpy as np


def fold_of(key: str) -> int:
    """Deterministic 2-fold assignment (document id or example id)."""
    return zlib.crc32(key.encode()) % 2


def two_fold(fold_correct: list[dict], groups) -> tuple[dict, list[tuple[int, int]]]:
    """Best head chosen on one fold (group 'all') and scored on the other, both ways.

    ``fold_correct[f][group]`` = (layers, heads) correct counts of fold f. Returns correct counts
    per group summed over the two held-out folds, and the (layer, head) chosen for folds 0 and 1
    (1-indexed). An honest estimate: the plain best head is picked on the data it is scored on."""
    out, chosen = dict.fromkeys(groups, 0), []
    for f in (0, 1):
        other = fold_correct[1 - f]["all"]
        layer, head = divmod(int(np.argmax(other)), other.shape[1])
        chosen.append((layer + 1, head + 1))
        for g in groups:
            out[g] += int(fold_correct[f][g][layer, head])
    return out, chosen
