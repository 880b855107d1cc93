"""Hewitt & Liang's (2019) control task for the dependency probes (beyond the paper): every word
type gets one fixed, random behaviour, and a word's control head follows its type alone, so a probe
that scores well on it has memorised word types rather than read syntax. Selectivity, the probe's
UAS on the gold trees minus its accuracy on the control heads (the same sentences, features,
training and scoring), says how much of the UAS its representation, not the probe, accounts for.

The behaviours are Hewitt & Liang's for dependency edges (attach to itself, to the first word, to
the last word), with one change: a word is never a candidate for its own head here (Clark et al.'s
probes, ``training.batches``), so "itself" attaches to the root instead, as does a first word told
to attach to the first word and a last word to the last. Word types are lowercased forms; the
behaviours are drawn once over the sorted types of every sentence given (train and dev alike)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from analysis.clark.probes.data import Sentence

ROOT, FIRST, LAST = 0, 1, 2  # a type's behaviour: attach to the root (itself), the first word, the last word
SUFFIX = ", control task"  # a probe's row name on the control task: "<probe>, control task"


def word_type(word: str) -> str:
    return word.lower()


def behaviours(sentences: list[Sentence], seed: int) -> dict[str, int]:
    """Each word type of ``sentences`` -> ROOT, FIRST or LAST, uniformly at random (seeded), drawn
    over the types in sorted order (the same behaviours whatever the sentences' order)."""
    types = sorted({word_type(w) for s in sentences for w in s.words})
    drawn = np.random.default_rng(seed).integers(0, 3, len(types))
    return dict(zip(types, drawn.tolist()))


def control_heads(words: list[str], behaviour: dict[str, int]) -> np.ndarray:
    """(W,) the control head unit of each word (0: the root, i: word i - 1, as ``Sentence.heads``):
    the first word (unit 1) or the last (unit W) as its type says, the root where that is the word
    itself or its type attaches to itself."""
    n = len(words)
    target = {ROOT: 0, FIRST: 1, LAST: n}
    heads = np.array([target[behaviour[word_type(w)]] for w in words], dtype=np.int64)
    heads[heads == np.arange(1, n + 1)] = 0  # a word is not its own head: the root instead
    return heads


def control_name(probe: str) -> str:
    return probe + SUFFIX
