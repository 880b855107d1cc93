"""Each head read as a parser (Clark et al. 2019 sec. 4.2): on word-level maps
(``analysis.core.word_level``), the prediction for word i is the word it attends to most, special
tokens and i itself excluded (``predictions``), or, for the 'head->dep' reading of the authors'
released code, the word attending most to i (``transposed_predictions``); and the words of an
example read back from its pieces (the ``poss`` clitic rule, the example map's labels)."""

from __future__ import annotations

import numpy as np


def predictions(maps: np.ndarray, unit_word: np.ndarray) -> np.ndarray:
    """Most-attended word of every unit, per head: ``maps`` (..., U, U) -> (..., U) word
    indices (-1 for rows of special tokens). Special-token columns and the diagonal are
    excluded; ties go to the first word."""
    m = np.array(maps, dtype=np.float64, copy=True)
    U = m.shape[-1]
    special = unit_word < 0
    m[..., :, special] = -np.inf
    m[..., np.arange(U), np.arange(U)] = -np.inf
    arg = m.argmax(-1)
    words = unit_word[arg]
    words[..., special] = -1
    if (~special).sum() < 2:  # a one-word window: nothing to point at
        words[...] = -1
    return words


def transposed_predictions(maps: np.ndarray, unit_word: np.ndarray) -> np.ndarray:
    """For every unit j, the word attending most TO j (special-token rows and the
    diagonal excluded): the released notebook's 'head->dep' reading."""
    return predictions(np.swapaxes(maps, -1, -2), unit_word)


def sentence_words(ex, n_words: int) -> list[str]:
    """The sentence's words as read back from the example's pieces (words outside this
    window: empty strings)."""
    out = [""] * n_words
    for w in {int(w) for w in ex.word_ids if w >= 0 and w < n_words}:
        out[w] = word_text(ex, w)
    return out


def word_text(ex, w: int) -> str:
    """Word ``w`` of example ``ex`` as read back from its pieces (``##`` / ``Ġ`` / ``▁`` markers dropped)."""
    pieces = [t for t, wid in zip(ex.tokens, ex.word_ids) if wid == w]
    return "".join(p[2:] if p.startswith("##") else p.lstrip("Ġ▁") for p in pieces) or "?"
