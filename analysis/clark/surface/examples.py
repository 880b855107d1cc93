"""The example heads of Clark et al. 2019 Fig. 1: the most extreme head of each surface
behaviour (per-head means from ``analysis.shared.attention_stats``), the segment to draw and
every value drawn. Layers and heads are 1-indexed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

BEHAVIOURS = {
    # behaviour -> (table, column, pick the head with the largest (+1) or smallest (-1) value)
    "prev": ("relative_position", "prev", 1),
    "next": ("relative_position", "next", 1),
    "cls": ("special_tokens", "cls", 1),
    "sep": ("special_tokens", "sep", 1),
    "punct": ("special_tokens", "punct", 1),
    "broad": ("entropy", "entropy", 1),
}


def pick_example_heads(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The most extreme head for each behaviour: behaviour, layer, head, metric, value."""
    rows = []
    for behaviour, (name, col, sign) in BEHAVIOURS.items():
        t = tables[name]
        i = (t[col] * sign).idxmax()
        rows.append(
            {
                "behaviour": behaviour,
                "layer": int(t.at[i, "layer"]),
                "head": int(t.at[i, "head"]),
                "metric": f"{name}.{col}",
                "value": float(t.at[i, col]),
            }
        )
    return pd.DataFrame(rows)


def pick_example_segment(lengths: list[int], choice, window: int, eligible: list[bool] | None = None) -> int:
    """Index of the segment to draw: ``choice`` itself when it is an integer, or with
    ``'auto'`` the longest eligible segment that fits in ``window`` word pieces (else the
    shortest), so that every token, [SEP] included, is on the figure."""
    if choice != "auto":
        if not 0 <= int(choice) < len(lengths):
            raise ValueError(f"example segment {choice} out of range: there are {len(lengths)} segments")
        return int(choice)
    eligible = eligible or [True] * len(lengths)
    fitting = [i for i, n in enumerate(lengths) if n <= window and eligible[i]]
    if fitting:
        return max(fitting, key=lambda i: (lengths[i], -i))
    return min(range(len(lengths)), key=lambda i: (lengths[i], i))


def example_segment(shards, choice, window: int):
    """The example (``storage.Example``) of ``shards`` to draw, chosen by ``pick_example_segment``
    among the segments whose A/B split falls at a sentence boundary."""
    index = [(e["n"], e.get("meta", {}).get("ab_boundary", "sentence")) for s in shards.shards for e in s.metadata()]
    want = pick_example_segment(
        [n for n, _ in index], choice, window, eligible=[boundary == "sentence" for _, boundary in index]
    )
    return next(e for i, e in enumerate(shards) if i == want)


def example_maps(picked: pd.DataFrame, attn: np.ndarray, tokens: list[str], window: int, segment: str) -> pd.DataFrame:
    """Every value drawn by ``plot_example_heads``: one row per (picked head, from token, to
    token) of the first ``window`` word pieces of one segment's maps ``attn`` (L, H, n, n)."""
    rows = []
    for r in picked.itertuples():
        m = attn[r.layer - 1, r.head - 1, :window, :window]
        frame = pd.DataFrame(m).stack().rename("attention").reset_index()
        frame.columns = ["from_index", "to_index", "attention"]
        frame.insert(0, "behaviour", r.behaviour)
        frame.insert(1, "layer", r.layer)
        frame.insert(2, "head", r.head)
        rows.append(frame)
    maps = pd.concat(rows, ignore_index=True)
    maps["from_token"] = [tokens[i] for i in maps.from_index]
    maps["to_token"] = [tokens[i] for i in maps.to_index]
    maps["segment"] = segment
    return maps
