"""Word-level attention maps from word-piece maps (Clark et al. sec. 4).

Attention TO a word is the sum over its pieces; attention FROM a word is the mean over its
pieces (``how='mean'``, the paper's choice), its first piece (``'first'``, the released
code's default) or the element-wise max renormalised (``'max'``). Special tokens stay
units of their own, so rows still sum to 1 over words + special tokens. Alignment comes
from the fast tokenizer's ``word_ids`` stored in the shards (-1 for special tokens), so
any tokenizer works.
"""

from __future__ import annotations

import numpy as np

HOW = ("mean", "first", "max")


def units(word_ids) -> tuple[np.ndarray, np.ndarray]:
    """(unit of each piece, word index of each unit or -1 for a special token).

    Units are ordered by their first piece; every special token is its own unit."""
    word_ids = np.asarray(word_ids)
    unit_of_piece = np.empty(len(word_ids), dtype=np.int64)
    unit_word: list[int] = []
    seen: dict[int, int] = {}
    for p, w in enumerate(word_ids):
        if w < 0:
            unit_of_piece[p] = len(unit_word)
            unit_word.append(-1)
        elif w in seen:
            unit_of_piece[p] = seen[w]
        else:
            seen[w] = unit_of_piece[p] = len(unit_word)
            unit_word.append(int(w))
    return unit_of_piece, np.asarray(unit_word, dtype=np.int64)


def unit_of_word(unit_word) -> dict[int, int]:
    """word index -> its unit (row/column of the word-level map); special-token units left out."""
    return {int(w): u for u, w in enumerate(unit_word) if w >= 0}


def word_maps(attn: np.ndarray, word_ids, how: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """Convert maps (..., n, n) over pieces into (..., U, U) over units.

    Returns the maps and, per unit, its word index (-1 for special tokens)."""
    if how not in HOW:
        raise ValueError(f"unknown 'from' aggregation {how!r}; one of {HOW}")
    unit_of_piece, unit_word = units(word_ids)
    n, U = len(unit_of_piece), len(unit_word)
    if attn.shape[-1] != n or attn.shape[-2] != n:
        raise ValueError(f"map of shape {attn.shape} for {n} pieces")
    assign = np.zeros((n, U), dtype=attn.dtype)
    assign[np.arange(n), unit_of_piece] = 1.0
    to_units = attn @ assign  # (..., n, U): attention TO each unit = sum over its pieces
    if how == "mean":
        from_w = assign / assign.sum(0, keepdims=True)
        return np.swapaxes(np.swapaxes(to_units, -1, -2) @ from_w, -1, -2), unit_word
    if how == "first":
        first = np.array([np.flatnonzero(unit_of_piece == u)[0] for u in range(U)])
        return to_units[..., first, :], unit_word
    out = np.stack([to_units[..., unit_of_piece == u, :].max(-2) for u in range(U)], axis=-2)
    return out / out.sum(-1, keepdims=True), unit_word
