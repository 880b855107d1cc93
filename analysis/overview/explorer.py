"""The attention-map explorer: one self-contained static HTML page per model (no server, no
network) with example maps, every head's thumbnail and each head's corpus-level numbers.

Maps are stored as 8-bit codes of sqrt(weight) (q = round(255 sqrt(w)), w = (q / 255)^2): small
weights, the common case, keep a fine step (at w = 0.01 the step is 0.0008; at most 0.0078 at
w = 1), then zlib-compressed and base64-encoded; the page inflates them with the browser's
DecompressionStream and draws on canvases (fast on long inputs: one pixel buffer per map).
"""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

TEMPLATE = Path(__file__).with_name("explorer_template.html")
LEVELS = 255


def quantise(maps: np.ndarray) -> np.ndarray:
    """Weights in [0, 1] -> uint8 codes of their square root."""
    return np.rint(np.sqrt(np.clip(maps.astype(np.float64), 0.0, 1.0)) * LEVELS).astype(np.uint8)


def dequantise(codes: np.ndarray) -> np.ndarray:
    return (codes.astype(np.float64) / LEVELS) ** 2


def quantisation_step(weight: float) -> float:
    """Largest |decoded - weight| for a weight: half a code step at its square root."""
    s = np.sqrt(weight)
    return float(max(min(s + 0.5 / LEVELS, 1.0) ** 2 - weight, weight - max(s - 0.5 / LEVELS, 0.0) ** 2))


def encode_maps(maps: np.ndarray) -> str:
    """(layers, heads, n, n) maps -> base64 of the zlib-compressed 8-bit codes (C order)."""
    return base64.b64encode(zlib.compress(quantise(maps).tobytes(), 9)).decode("ascii")


def spread_indices(n: int, k: int) -> list[int]:
    """``k`` indices of ``n`` items spread evenly (deterministic: first, ..., last); all if k >= n."""
    if k >= n:
        return list(range(n))
    return [int(i) for i in np.unique(np.linspace(0, n - 1, k).round().astype(int))]


def pick_examples(examples: list, n_examples: int) -> list:
    """``n_examples`` examples spread evenly over the corpus (deterministic: first, ..., last)."""
    return [examples[i] for i in spread_indices(len(examples), n_examples)]


def shard_share(n_examples: int, n_shards: int, shard: int) -> int:
    """How many of the ``n_examples`` example maps shard ``shard`` of ``n_shards`` gives (the
    first shards one more when they do not divide evenly); shards interleave the corpus's
    inputs, so evenly spaced examples of every shard are spread over the whole corpus."""
    return n_examples // n_shards + (1 if shard < n_examples % n_shards else 0)


def pick_from_shard(shard, n_examples: int) -> list:
    """``n_examples`` examples of ``shard`` (a ``storage.Shard``) spread evenly over it, read one
    at a time (only the chosen ones stay in memory)."""
    idx = set(spread_indices(len(shard), n_examples)) if n_examples > 0 else set()
    return [ex for i, ex in enumerate(shard) if i in idx]


def example_payload(example) -> dict:
    return {
        "id": example.id,
        "tokens": list(example.tokens),
        "kinds": example.kinds,
        "n": example.n,
        "maps": encode_maps(np.asarray(example.attn)),
    }


def fit_examples(payloads: list[dict], max_bytes: float, overhead: int = 60_000) -> list[dict]:
    """The leading payloads whose maps fit in ``max_bytes`` (the page's code and tables take
    about ``overhead``); fails when not even the first one fits."""
    out, used = [], overhead
    for p in payloads:
        used += len(p["maps"]) + 12 * p["n"] + 200
        if used > max_bytes:
            break
        out.append(p)
    if payloads and not out:
        raise ValueError(
            f"explorer: one example's maps ({len(payloads[0]['maps']) / 1e6:.1f} MB) exceed overview.explorer.max_mb"
        )
    return out


def head_numbers(
    relative_position: pd.DataFrame,
    special_tokens: pd.DataFrame,
    entropy: pd.DataFrame,
    dep_full: pd.DataFrame | None = None,
    min_count: int = 30,
) -> dict[str, dict]:
    """Per head ("layer-head", 1-indexed) the corpus-level numbers shown beside its map; its best
    dependency relation among those with at least ``min_count`` scored arcs."""
    t = relative_position[["layer", "head", "prev", "current", "next"]]
    t = t.merge(special_tokens[["layer", "head", "cls", "sep", "punct"]], on=["layer", "head"])
    t = t.merge(entropy[["layer", "head", "entropy", "uniform_entropy"]], on=["layer", "head"])
    out = {}
    for r in t.itertuples(index=False):
        out[f"{r.layer}-{r.head}"] = {
            k: round(float(getattr(r, k)), 4) for k in t.columns if k not in ("layer", "head")
        }
    if dep_full is not None and len(dep_full):
        rel = dep_full[~dep_full["relation"].str.startswith("All") & (dep_full["n"] >= min_count)]
        best = rel.sort_values("accuracy", ascending=False, kind="stable").drop_duplicates(["layer", "head"])
        for r in best.itertuples(index=False):
            key = f"{r.layer}-{r.head}"
            if key in out:
                out[key]["best_relation"] = f"{r.relation} ({r.direction}) {r.accuracy:.3f}"
    return out


def explorer_html(model: str, n_layers: int, n_heads: int, examples: list[dict], heads: dict, note: str) -> str:
    """The page: the template with the data embedded as one JSON object."""
    data = {
        "model": model,
        "n_layers": n_layers,
        "n_heads": n_heads,
        "levels": LEVELS,
        "examples": examples,
        "heads": heads,
        "note": note,
    }
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return TEMPLATE.read_text().replace("/*DATA*/null", blob).replace("__MODEL__", model)
