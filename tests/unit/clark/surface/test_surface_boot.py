"""Replicate tables of the sec. 3 surface tables: segments resampled (analysis.clark.surface.boot)."""

import numpy as np
import pandas as pd
import pytest
from test_surface_sums import H, L, _write  # noqa: E402 (tests/unit/clark/surface, on sys.path beside it)

from analysis.clark.clusters.distances import distance_table, layer_blocks, layer_table, replicate_blocks
from analysis.clark.surface.boot import (
    by_layer_frame,
    per_head_frame,
    replicate_means,
    replicate_tables,
    segment_clusters,
    unit_stats,
)
from analysis.clark.surface.sums import SURFACE_STATS, combine, shard_sums
from analysis.core.storage import Shard
from analysis.shared.attention_stats import RATIOS, by_layer, per_head_table
from analysis.shared.bootstrap import cluster_weights, unit_weights


@pytest.fixture
def parts(tmp_path):
    paths = [_write(tmp_path, 0, [7, 4, 5], seed=0), _write(tmp_path, 1, [6, 8, 6], seed=10)]
    first, out = 0, []
    for p in paths:
        shard = Shard(p)
        out.append(shard_sums(shard, first, None, 0.0, "auto", 6)[0])
        first += len(shard)
    return out


def test_segments_own_statistics_add_up_to_the_sums(parts):
    for name in SURFACE_STATS:
        units, total = unit_stats(parts, name), combine(parts, name)
        assert units.keys() == total.keys()
        for k, u in units.items():
            assert len(u) == 6 and u.shape[1:] in [(), (L, H)]
            np.testing.assert_allclose(np.broadcast_to(u.sum(0), (L, H)), total[k], rtol=1e-12)


@pytest.mark.parametrize("name", list(SURFACE_STATS))
def test_weights_of_one_give_the_point_tables(parts, name):
    point = per_head_table(combine(parts, name))
    metrics = [c for c in point.columns if c in RATIOS]
    means = replicate_means(unit_stats(parts, name), np.ones((2, 6), dtype=np.int64))
    heads = per_head_frame(means, metrics)
    for b in (0, 1):
        got = heads[heads.replicate == b].drop(columns="replicate").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, point[["layer", "head", *metrics]], check_dtype=False, rtol=1e-12)
    layers = by_layer_frame(means, metrics)
    got = layers[layers.replicate == 1].drop(columns="replicate").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, by_layer(point, metrics), check_dtype=False, rtol=1e-12)


def test_hand_computed_replicates():
    # 3 segments, 1 layer, 2 heads: attention to the previous token summed over rows, and the row counts
    units = {
        "prev": np.array([[[1.0, 2.0]], [[3.0, 0.0]], [[0.5, 4.0]]]),  # (3 segments, 1 layer, 2 heads)
        "n_prev": np.array([2.0, 4.0, 5.0]),
    }
    weights = np.array([[2, 1, 0], [0, 0, 3], [1, 1, 1]])
    prev = replicate_means(units, weights)["prev"]
    assert prev.shape == (3, 1, 2)
    # replicate 0: segment 0 twice, segment 1 once: head 1 (1+1+3)/(2+2+4), head 2 (2+2+0)/8
    np.testing.assert_allclose(prev[0, 0], [5 / 8, 4 / 8])
    # replicate 1: segment 2 three times: its own means
    np.testing.assert_allclose(prev[1, 0], [0.5 / 5, 4 / 5])
    # replicate 2: every segment once: the point means
    np.testing.assert_allclose(prev[2, 0], [4.5 / 11, 6 / 11])
    table = per_head_frame({"prev": prev}, ["prev"])
    assert list(table.columns) == ["layer", "head", "prev", "replicate"]
    assert table.loc[table.replicate == 0, "head"].tolist() == [1, 2]
    layers = by_layer_frame({"prev": prev}, ["prev"])
    np.testing.assert_allclose(layers.prev, [9 / 16, 0.45, 10.5 / 22])


def test_no_rows_of_a_metric_give_nan():
    units = {"sep_from_sep": np.array([[[0.9, 0.8]], [[0.0, 0.0]]]), "n_sep_rows": np.array([1.0, 0.0])}
    means = replicate_means(units, np.array([[0, 2], [1, 1]]))["sep_from_sep"]
    assert np.isnan(means[0]).all()
    np.testing.assert_allclose(means[1, 0], [0.9, 0.8])
    assert np.isnan(by_layer_frame({"s": means}, ["s"]).s[0])


def test_replicate_tables(parts):
    got = replicate_tables(parts, "relative_position", 20, 3, per_head=["prev", "current", "next"], layers=["prev"])
    heads, layers = got["heads"], got["layers"]
    assert list(heads.columns) == ["layer", "head", "prev", "current", "next", "replicate"]
    assert len(heads) == 20 * L * H and sorted(heads.replicate.unique()) == list(range(20))
    assert list(layers.columns) == ["layer", "prev", "replicate"] and len(layers) == 20 * L
    # the seeded draws of analysis.shared.bootstrap, so the same for every table of the segments
    means = replicate_means(unit_stats(parts, "relative_position"), unit_weights(6, 20, 3))
    np.testing.assert_allclose(heads.current, means["current"].ravel())
    again = replicate_tables(parts, "relative_position", 20, 3, per_head=["prev", "current", "next"])
    pd.testing.assert_frame_equal(again["heads"], heads)
    # resampled by article (here 2 of 3 and 4 of 6 segments): the table says how many clusters it drew
    by_article = replicate_tables(parts, "relative_position", 20, 3, layers=["prev"], clusters=list("aabbbc"))
    assert by_article["layers"]["resampled_units"].unique().tolist() == [3]


def test_sums_without_segments_statistics():
    with pytest.raises(ValueError, match="rerun rule surface_sums"):
        unit_stats([{"entropy.entropy": np.zeros((L, H))}], "entropy")


def test_layer_pairs_of_the_head_distances(parts):
    dist = parts[0]["js"] + parts[1]["js"]
    full = distance_table(dist, H)
    layers = layer_table(layer_blocks(dist, L, H), H)
    assert len(layers) == L * L and set(layers.pairs) == {H * H, H * (H - 1)}
    # the claim's two means (clark6.layer_clusters) read the same on either table
    for query, pairs_query in [
        ("layer_a != layer_b", "layer_a != layer_b"),
        ("layer_a == layer_b", "head_a != head_b"),
    ]:
        want = full.query(query).query(pairs_query).js_sum.mean()
        assert layers.query(query).mean_js_sum.mean() == pytest.approx(want, rel=1e-12)
    # each segment's own layer blocks add up to those of the sum; all weights 1 give the point table
    units = np.concatenate([part["unit.js_layers"] for part in parts])
    assert units.shape == (6, L, L)
    boot = layer_table(_boot(units, 2), H)
    got = boot[boot.replicate == 1].drop(columns="replicate").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, layers.drop(columns="pairs"), rtol=1e-12)


def _boot(units, B):
    return (np.ones((B, len(units))) @ units.reshape(len(units), -1)).reshape(B, *units.shape[1:])


def test_layer_blocks_by_hand():
    # 2 layers of 2 heads: K = 4; a head's distance to itself (diagonal) left out
    dist = np.arange(16.0).reshape(4, 4)
    blocks = layer_blocks(dist, 2, 2)
    np.testing.assert_allclose(blocks, [[1 + 4, 2 + 3 + 6 + 7], [8 + 9 + 12 + 13, 11 + 14]])
    t = layer_table(blocks, 2)
    np.testing.assert_allclose(t.mean_js_sum, [5 / 2, 18 / 4, 42 / 4, 25 / 2])


def test_segments_articles_are_the_clusters(tmp_path, parts):
    metas = []
    first = 0
    for i, sizes in enumerate([[7, 4, 5], [6, 8, 6]]):
        shard = Shard(_write(tmp_path, 10 + i, sizes, seed=i))
        meta = shard_sums(shard, first, 4, 0.0, "auto", 6)[1]
        metas.append(meta)
        first += len(shard)
    # no article in these examples' meta: every segment is its own cluster (its id)
    ids = segment_clusters(metas)
    assert len(ids) == 6 and len(set(ids)) == 6
    assert segment_clusters(metas, js=True) == ids[:4]  # the head distances' first 4 segments
    with pytest.raises(ValueError, match="rerun surface_sums"):
        segment_clusters([{"examples": 1, "js_segments": 1}])
    # singleton clusters: the segments' own resamples; articles: the segments of one share a weight
    single = replicate_tables(parts, "relative_position", 20, 3, per_head=["prev"], clusters=ids)
    plain = replicate_tables(parts, "relative_position", 20, 3, per_head=["prev"])
    assert single["heads"].pop("resampled_units").unique().tolist() == [6]  # 6 clusters of one segment
    pd.testing.assert_frame_equal(single["heads"], plain["heads"])
    arts = ["a", "a", "a", "b", "b", "c"]
    got = replicate_tables(parts, "relative_position", 20, 3, per_head=["prev"], clusters=arts)["heads"]
    means = replicate_means(unit_stats(parts, "relative_position"), cluster_weights(arts, 20, 3))
    np.testing.assert_allclose(got.prev, means["prev"].ravel())


def test_layer_replicates_of_articles_are_on_the_scale_of_all_segments():
    # 3 segments' blocks 1, 2, 6; a replicate drawing the article of segments 0 and 1 twice: 4 segments
    # whose sum 2 * 1 + 2 * 2 = 6 is 1.5 a segment, 4.5 on the scale of 3 segments
    units = np.array([1.0, 2.0, 6.0]).reshape(3, 1, 1)
    got = replicate_blocks(units, np.array([[2, 2, 0], [1, 1, 1]]))
    np.testing.assert_allclose(got.ravel(), [4.5, 9.0])
