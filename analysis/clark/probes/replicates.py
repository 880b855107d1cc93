"""Replicates of Clark et al.'s Table 3 (probe UAS) for the scorecard's intervals: every probe's UAS
on bootstrap resamples of the dev documents (each drawn with all its sentences:
``analysis.shared.bootstrap.cluster_weights``; UAS is correct over scored words of the replicate
itself, so a replicate's size may vary), the same resample for every probe (paired: the probes
are compared on the same sentences). The probes stay as trained: the intervals cover the choice of
dev sentences, not the training seed."""

from __future__ import annotations

import numpy as np
import pandas as pd


def sentence_table(per_sentence: dict[str, np.ndarray], ids: dict[str, list[str]]) -> pd.DataFrame:
    """Rows (probe, sentence, correct, scored) from each probe's (sentences, 2) counts and the ids
    of its dev sentences."""
    parts = [
        pd.DataFrame({"probe": name, "sentence": ids[name], "correct": counts[:, 0], "scored": counts[:, 1]})
        for name, counts in per_sentence.items()
    ]
    return pd.concat(parts, ignore_index=True)


def uas_replicates(sentences: pd.DataFrame, weights: np.ndarray) -> pd.DataFrame:
    """Rows (replicate, probe, uas) for every resample's weights over the dev sentences (columns in
    sorted sentence-id order, shared by every probe); a probe must have scored every sentence."""
    ids = sorted(set(sentences["sentence"]))
    parts = []
    for probe, rows in sentences.groupby("probe", sort=False):
        rows = rows.set_index("sentence")
        if sorted(rows.index) != ids:
            raise ValueError(f"probe {probe!r} was scored on other dev sentences than the rest")
        rows = rows.loc[ids]
        correct, scored = weights @ rows["correct"].to_numpy(), weights @ rows["scored"].to_numpy()
        parts.append(pd.DataFrame({"replicate": np.arange(len(weights)), "probe": probe, "uas": correct / scored}))
    return pd.concat(parts, ignore_index=True)
