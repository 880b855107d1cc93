"""The fixed-offset baseline of Clark et al. 2019 sec. 4.2 (Table 1), as in the authors' code: d's
head is predicted to be the word at d + o, where positions before the first word are the root and
positions after the last word are the last word (:func:`offset_prediction`); every o in -k..k
(o != 0) is tallied per relation and direction (the best one is chosen in
:mod:`analysis.clark.syntax.tables`). The tallies of one arc: :func:`arc_baseline` (a non-root arc,
through the ``poss`` clitic when it stands for the dependent) and :func:`root_baseline`."""

from __future__ import annotations

import numpy as np


def baseline_offsets(max_offset: int) -> list[int]:
    """The offsets of the baseline: -``max_offset``..``max_offset``, 0 left out."""
    return [o for o in range(-max_offset, max_offset + 1) if o != 0]


def offset_prediction(word: int, offset: int, n_words: int) -> int:
    """The fixed-offset baseline's predicted head of ``word`` in a sentence of ``n_words``
    words, as in the authors' code: ``word + offset``, -1 (the root) before the first word,
    the last word after it."""
    return min(max(word + offset, -1), n_words - 1)


def arc_baseline(d: int, h: int, v: int, n_words: int, offsets, reverse: str) -> np.ndarray:
    """(2, n_offsets): which offsets find the non-root arc d -> h, with ``v`` the word whose
    prediction stands for d's (the poss clitic rule, as in the authors' code): dep->head, the
    offset from v lands on h; head->dep, the offset from h lands on v (``reverse='transpose'``)
    or on d or v (``reverse='row'``)."""
    dependents = {v} if reverse == "transpose" else {d, v}
    return np.array(
        [
            [offset_prediction(v, o, n_words) == h for o in offsets],
            [h + o in dependents for o in offsets],
        ]
    )


def root_baseline(d: int, n_words: int, offsets) -> np.ndarray:
    """(2, n_offsets): offsets that put the root arc's word d before the first word are
    right (dep->head); no offset finds a dependent of the root (head->dep)."""
    return np.array([[offset_prediction(d, o, n_words) < 0 for o in offsets], [False] * len(offsets)])
