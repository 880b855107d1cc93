"""The heads of Clark et al. 2019 Fig. 6 as points: a 2-D metric MDS of their Jensen-Shannon
distances (:mod:`analysis.clark.clusters.distances`), each head labelled with a behaviour.

Behaviour labels come from the per-head surface tables of Clark sec. 3 (``behaviour_table``:
mean attention to the previous / next token, to [CLS]-, [SEP]- and '.'/','-kind tokens, mean
entropy relative to uniform, over every wiki segment) and thresholds from the config
(``clark_clusters.thresholds``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

BEHAVIOURS = ("next", "prev", "cls", "sep", "punct", "broad", "other")
BEHAVIOUR_LABELS = {
    "next": "next token",
    "prev": "previous token",
    "cls": "[CLS]",
    "sep": "[SEP]",
    "punct": ". or ,",
    "broad": "broad",
    "other": "other",
}


def behaviour_table(relative_position: pd.DataFrame, special_tokens: pd.DataFrame, entropy: pd.DataFrame):
    """Per head (layer, head 1-indexed): the numbers behind the behaviour labels, taken from
    the surface tables (``relative_position``, ``special_tokens``, ``entropy``: every wiki
    segment), so that Fig. 6's colours agree with Clark sec. 3's tables."""
    keys = ["layer", "head"]
    t = (
        relative_position[[*keys, "prev", "next"]]
        .merge(special_tokens[[*keys, "cls", "sep", "punct"]], on=keys, validate="1:1")
        .merge(entropy[[*keys, "entropy", "uniform_entropy"]], on=keys, validate="1:1")
    )
    t["entropy_ratio"] = t["entropy"] / t["uniform_entropy"]
    return t.sort_values(keys, ignore_index=True)


def behaviour(row: pd.Series | dict, thresholds: dict) -> str:
    """First matching behaviour in order next, prev, [CLS], [SEP], punctuation, broad
    (``thresholds``: one per behaviour, config ``clark_clusters.thresholds``)."""
    for key in ("next", "prev", "cls", "sep", "punct"):
        if row[key] > thresholds[key]:
            return key
    if row["entropy_ratio"] > thresholds["broad"]:
        return "broad"
    return "other"


def mds_embedding(dist: np.ndarray, seed: int, n_init: int = 4) -> tuple[np.ndarray, float]:
    """2-D metric MDS of a precomputed distance matrix (scikit-learn, seeded)."""
    from sklearn.manifold import MDS

    kwargs = dict(n_components=2, random_state=seed, n_init=n_init)
    try:
        mds = MDS(metric="precomputed", init="random", **kwargs)  # scikit-learn >= 1.8
        xy = mds.fit_transform(dist)
    except TypeError:  # pragma: no cover - older scikit-learn
        mds = MDS(dissimilarity="precomputed", **kwargs)
        xy = mds.fit_transform(dist)
    return xy, float(mds.stress_)


def head_points(heads: pd.DataFrame, xy: np.ndarray, n_layers: int, n_heads: int, thresholds: dict) -> pd.DataFrame:
    """``behaviour_table``'s heads with their MDS coordinates (``xy``, in the distances'
    layer-major order) and behaviour labels."""
    if ((heads["layer"] - 1) * n_heads + heads["head"] - 1).tolist() != list(range(n_layers * n_heads)):
        raise ValueError(f"surface tables hold {len(heads)} heads, not the {n_layers} x {n_heads} of the shards")
    heads["x"], heads["y"] = xy[:, 0], xy[:, 1]
    heads["behaviour"] = heads.apply(behaviour, axis=1, thresholds=thresholds)
    return heads


def cluster_points(
    dist: np.ndarray,
    surface: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame],
    n_layers: int,
    n_heads: int,
    thresholds: dict,
    seed: int,
) -> tuple[pd.DataFrame, float]:
    """(points, MDS stress): every head's MDS coordinates of the distances ``dist`` (seeded) and its
    behaviour label from the ``surface`` tables (relative_position, special_tokens, entropy)."""
    xy, stress = mds_embedding(dist, seed=int(seed))
    heads = head_points(behaviour_table(*surface), xy, n_layers, n_heads, thresholds)
    return heads, stress


def point_counts(points: pd.DataFrame, stress: float, thresholds: dict) -> dict:
    """What the points were drawn with: the MDS stress, the heads per behaviour, the thresholds."""
    return {
        "mds_stress": stress,
        "behaviours": points.behaviour.value_counts().to_dict(),
        "thresholds": dict(thresholds),
        "behaviour_source": "relative_position.csv, special_tokens.csv, entropy.csv (every wiki segment)",
    }
