"""Table 1's per-sentence tallies, saved beside a run (``resources/units/<model>/dep_heads.<corpus>.npz``)
and read back: every relation's sentences with their head hits, offset hits and arcs, and every
sentence's document. What the replicates are weighted sums of, so a calibration can resample the
run's own documents (tools/measure/own_calibration.py) without the maps, which a run deletes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analysis.clark.syntax.heldout import sentence_tallies


def save_tallies(sc, clusters, path) -> None:
    """Write ``sc``'s (a DepScorer) tallies of every relation and the sentences' ``clusters``."""
    relations = list(sc.correct)
    arrays = {
        "shape": np.array(sc.shape),
        "offsets": np.array(sc.offsets),
        "clusters": np.array(clusters, dtype=str),
        "relations": np.array(relations, dtype=str),
    }
    for j, rel in enumerate(relations):
        idx, hits, base, n = sentence_tallies(sc, rel)
        arrays |= {f"idx{j}": idx, f"hits{j}": hits, f"base{j}": base, f"n{j}": n}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


class SentenceTallies:
    """Saved tallies read back with what Table 1's replicate functions read of a DepScorer
    (``by_sentence``, ``correct``, ``shape``, ``offsets``) and the sentences' ``clusters``."""

    def __init__(self, path):
        with np.load(path) as z:
            self.shape = tuple(int(x) for x in z["shape"])
            self.offsets = [int(x) for x in z["offsets"]]
            self.clusters = [str(c) for c in z["clusters"]]
            relations = [str(r) for r in z["relations"]]
            self.correct = dict.fromkeys(relations)  # the relations, in the scorer's order
            self.by_sentence: dict[str, dict] = {str(i): {} for i in range(len(self.clusters))}
            for j, rel in enumerate(relations):
                for i, h, b, k in zip(z[f"idx{j}"], z[f"hits{j}"], z[f"base{j}"], z[f"n{j}"]):
                    self.by_sentence[str(int(i))][rel] = (h, b, k)
