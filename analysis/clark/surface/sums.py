"""One pass over one shard of the Wikipedia maps for every sec. 3 / sec. 6 analysis.

The surface statistics (``analysis.shared.attention_stats.*_stats``) and the head distances
(``analysis.clark.clusters.distances``) are sums over segments, so each shard can be reduced on
its own as soon as it is extracted and its maps deleted (rule ``surface_sums``; the maps are the
workflow's largest files). ``combine`` adds the shards' sums: the same totals as one pass over
every shard (up to float64 rounding of the order of addition, far below the tables' six
significant digits).

The segment drawn by ``example_heads`` is chosen here too: each shard keeps its own best
candidate (``examples.pick_example_segment`` restricted to the shard, with global indices), and
``pick_candidate`` picks among the shards' candidates, which is the same choice as over every
segment at once.

Each shard also keeps every segment's own statistics (``unit.<analysis>.<key>``, in segment
order: (segments, layers, heads), or (segments,) for the counts and uniform baselines, which are
the same for every head): the scorecard's replicate tables resample segments
(``analysis.clark.surface.boot``).
"""

from __future__ import annotations

import numpy as np

from analysis.clark.clusters.distances import JSWorkspace, layer_blocks, pairwise_js
from analysis.clark.surface.examples import pick_example_segment
from analysis.shared.attention_stats import (
    entropy_stats,
    per_segment,
    relative_position_stats,
    sep_attention_stats,
    special_tokens_stats,
)

# analysis (= the rule that reads its sums) -> per-example statistics
SURFACE_STATS = {
    "relative_position": relative_position_stats,
    "special_tokens": special_tokens_stats,
    "sep_attention": sep_attention_stats,
    "entropy": entropy_stats,
}


def candidate_index(examples: list[dict], first: int, choice, window: int) -> int | None:
    """Global index of this shard's example_heads candidate (``examples``: the shard's index
    entries, ``first``: the global index of its first one); None if ``choice`` is an index
    outside the shard."""
    if choice != "auto":
        i = int(choice) - first
        return int(choice) if 0 <= i < len(examples) else None
    eligible = [e.get("meta", {}).get("ab_boundary", "sentence") == "sentence" for e in examples]
    return first + pick_example_segment([e["n"] for e in examples], "auto", window, eligible)


def shard_sums(shard, first: int, js_segments: int | None, eps: float, choice, window: int):
    """Sums of every statistic over the examples of ``shard`` (a ``storage.Shard`` whose first
    example has global index ``first``), the head distances over the examples with global
    index < ``js_segments`` (None: all), and the candidate example for ``example_heads``.
    Returns (arrays: ``<analysis>.<key>`` -> float64 (L, H), ``unit.<analysis>.<key>`` -> the
    examples' own values, ``js`` (K, K) and its segments' own ``unit.js_layers``
    (``clusters.distances.layer_blocks``: (segments, L, L)), ``candidate_attn``; meta: counts and the candidate's id,
    tokens, global index, length and eligibility)."""
    L, H = shard.n_layers, shard.n_heads
    K = L * H
    sums: dict = {}
    units: dict = {}  # unit.<analysis>.<key> -> one value per example
    js_layers = []  # per segment of the head distances: layer_blocks (L, L)
    js = np.zeros((K, K), dtype=np.float64)
    want = candidate_index(list(shard.metadata()), first, choice, window)
    # articles: every example's cluster of the scorecard's resamples (its Wikipedia article; its own id
    # where the corpus records none)
    meta = {"examples": 0, "js_segments": 0, "js_tokens": 0, "candidate": None, "articles": []}
    arrays = {}
    work = JSWorkspace()  # one pair of scratch buffers for every segment of the shard
    for i, ex in enumerate(shard, start=first):
        attn = ex.attn  # float32, rows renormalised (as every analysis reads them)
        if attn.shape[:2] != (L, H):
            raise ValueError(f"example {ex.id}: maps of shape {attn.shape}, expected ({L}, {H}, n, n)")
        for name, stats in SURFACE_STATS.items():
            for k, v in stats(attn, ex.kinds).items():
                key = f"{name}.{k}"
                v = np.asarray(v, dtype=np.float64)
                sums[key] = sums.get(key, 0.0) + v
                units.setdefault(f"unit.{key}", []).append(v.flat[0] if per_segment(k) else v)
        if js_segments is None or i < js_segments:
            seg_js = pairwise_js(attn.reshape(K, ex.n, ex.n), eps=eps, work=work)
            js += seg_js
            js_layers.append(layer_blocks(seg_js, L, H))
            meta["js_segments"] += 1
            meta["js_tokens"] += ex.n
        if i == want:
            arrays["candidate_attn"] = attn
            eligible = ex.meta.get("ab_boundary", "sentence") == "sentence"
            meta["candidate"] = {"id": ex.id, "tokens": ex.tokens, "index": i, "n": ex.n, "eligible": eligible}
        meta["examples"] += 1
        meta["articles"].append(str(ex.meta.get("article", ex.id)))
    arrays.update(sums)
    arrays.update({k: np.asarray(v, dtype=np.float64) for k, v in units.items()})
    arrays["js"] = js
    arrays["unit.js_layers"] = np.asarray(js_layers, dtype=np.float64).reshape(-1, L, L)
    return arrays, meta


def combine(parts: list[dict], prefix: str) -> dict:
    """Add the ``<prefix>.<key>`` arrays of every shard's sums: key -> total."""
    total: dict = {}
    for part in parts:
        for key, v in part.items():
            if key.startswith(prefix + "."):
                k = key[len(prefix) + 1 :]
                total[k] = total.get(k, 0.0) + v
    if not total:
        raise ValueError(f"no sums for {prefix!r} in the shards' sums")
    return total


def pick_candidate(candidates: list[dict], choice, window: int) -> int:
    """Position in ``candidates`` (the shards' candidate metas, None where a shard has none) of
    the example to draw: the candidate with that index, or with ``'auto'`` the one
    ``pick_example_segment`` chooses among them (global index breaks ties as over every segment)."""
    have = [(j, c) for j, c in enumerate(candidates) if c is not None]
    if not have:
        raise ValueError(f"example segment {choice} out of range: no shard holds it")
    if choice != "auto":
        return have[0][0]
    order = sorted(have, key=lambda jc: jc[1]["index"])
    k = pick_example_segment([c["n"] for _, c in order], "auto", window, [c["eligible"] for _, c in order])
    return order[k][0]


def write_sums(arrays: dict, meta: dict, npz_path, json_path) -> None:
    """Write one shard's sums (atomically: a killed job leaves no sums behind)."""
    import json
    from pathlib import Path

    npz_path, json_path = Path(npz_path), Path(json_path)
    npz_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = npz_path.with_name(npz_path.name + ".part.npz")
    np.savez(tmp, **arrays)
    tmp.replace(npz_path)
    json_path.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


def read_sums(npz_paths) -> tuple[list[dict], list[dict]]:
    """Every shard's sums (arrays, in shard order) and metas (the .json beside each .npz)."""
    import json
    from pathlib import Path

    arrays, metas = [], []
    for p in npz_paths:
        with np.load(p) as z:
            arrays.append({k: z[k] for k in z.files})
        metas.append(json.loads(Path(p).with_suffix(".json").read_text()))
    return arrays, metas
