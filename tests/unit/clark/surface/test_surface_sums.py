"""Shard-by-shard sums (rule surface_sums) equal one pass over every shard."""

import numpy as np
import pytest

from analysis.clark.clusters.distances import pairwise_js
from analysis.clark.surface import examples as surface
from analysis.clark.surface.sums import SURFACE_STATS, candidate_index, combine, pick_candidate, shard_sums
from analysis.core.storage import Shard, Shards, write_shard
from analysis.shared.attention_stats import accumulate
from conftest import random_maps

L, H = 2, 3


def _write(tmp_path, k, lengths, seed, boundaries=None):
    examples, maps = [], []
    for i, n in enumerate(lengths):
        kinds = "C" + "O" * (n - 3) + "PS" if n >= 3 else "C" * n
        meta = {"ab_boundary": (boundaries or {}).get(i, "sentence")}
        examples.append(
            {
                "id": f"s{k}-{i}",
                "n": n,
                "tokens": [f"t{j}" for j in range(n)],
                "input_ids": list(range(n)),
                "kinds": kinds,
                "word_ids": list(range(n)),
                "seq_ids": [0] * n,
                "meta": meta,
            }
        )
        maps.append((i, random_maps(L, H, n, seed=seed + i)))
    write_shard(tmp_path / f"shard-{k}", {"n_layers": L, "n_heads": H, "model": "m"}, examples, maps)
    return tmp_path / f"shard-{k}.npy"


@pytest.fixture
def shards(tmp_path):
    # lengths chosen so that the 'auto' example (longest that fits a window of 6) is in shard 1
    return [
        _write(tmp_path, 0, [7, 4, 5], seed=0),
        _write(tmp_path, 1, [6, 8, 6], seed=10, boundaries={2: "split"}),
    ]


def _per_shard(paths, js_segments, choice="auto", window=6):
    first, out = 0, []
    for p in paths:
        shard = Shard(p)
        out.append(shard_sums(shard, first, js_segments, 0.0, choice, window))
        first += len(shard)
    return out


def test_combined_sums_equal_one_pass(shards):
    parts = [a for a, _ in _per_shard(shards, js_segments=4)]
    for name, stats in SURFACE_STATS.items():
        whole, n = accumulate(Shards(shards), stats)
        assert n == 6
        got = combine(parts, name)
        assert got.keys() == whole.keys()
        for k in whole:
            np.testing.assert_allclose(got[k], whole[k], rtol=1e-12)


def test_head_distances_over_the_first_segments(shards):
    per = _per_shard(shards, js_segments=4)
    want = sum(pairwise_js(ex.attn.reshape(L * H, ex.n, ex.n)) for i, ex in enumerate(Shards(shards)) if i < 4)
    np.testing.assert_allclose(sum(a["js"] for a, _ in per), want, rtol=1e-12)
    assert [m["js_segments"] for _, m in per] == [3, 1]
    assert [m["js_tokens"] for _, m in per] == [16, 6]


def test_example_candidate_is_the_global_choice(shards):
    everything = Shards(shards)
    for choice, window in [("auto", 6), ("auto", 3), (1, 6), (4, 6)]:
        per = _per_shard(shards, None, choice, window)
        k = pick_candidate([m["candidate"] for _, m in per], choice, window)
        want = surface.example_segment(everything, choice, window)
        assert per[k][1]["candidate"]["id"] == want.id
        np.testing.assert_array_equal(per[k][0]["candidate_attn"], want.attn)
    # 'auto', window 6: the longest fitting segment with a sentence boundary is s1-0 (s1-2 is split)
    assert candidate_index(list(Shard(shards[1]).metadata()), 3, "auto", 6) == 3


def test_index_outside_every_shard(shards):
    per = _per_shard(shards, None, 9, 6)
    assert all(m["candidate"] is None for _, m in per)
    with pytest.raises(ValueError, match="out of range"):
        pick_candidate([m["candidate"] for _, m in per], 9, 6)
