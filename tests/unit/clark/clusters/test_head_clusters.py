import math

import numpy as np
import pandas as pd
import pytest

from analysis.clark.clusters import distances, plots, points

# config/config.default.yaml: clark_clusters.thresholds
THRESHOLDS = {"next": 0.5, "prev": 0.5, "cls": 0.5, "sep": 0.5, "punct": 0.3, "broad": 0.7}


def test_js_identical_heads_is_zero_and_symmetric():
    rng = np.random.default_rng(0)
    a = rng.random((5, 7, 7))
    a /= a.sum(-1, keepdims=True)
    a[3] = a[1]  # heads 1 and 3 identical
    d = distances.pairwise_js(a)
    assert d.shape == (5, 5)
    assert d[1, 3] == 0.0 and d[3, 1] == 0.0
    assert np.all(np.diag(d) == 0)
    np.testing.assert_array_equal(d, d.T)
    off = ~np.eye(5, dtype=bool)
    off[1, 3] = off[3, 1] = False
    assert np.all(d[off] > 0)
    # JS is bounded by ln 2 per token
    assert d.max() <= 7 * math.log(2) + 1e-9


def test_js_hand_computed_2x2():
    # head 0: token 1 -> [1, 0], token 2 -> [0.5, 0.5]
    # head 1: token 1 -> [0, 1], token 2 -> [0.5, 0.5]   JS = ln 2 + 0
    # head 2: token 1 -> [0.5, 0.5], token 2 -> [0.5, 0.5]
    a = np.array(
        [
            [[1.0, 0.0], [0.5, 0.5]],
            [[0.0, 1.0], [0.5, 0.5]],
            [[0.5, 0.5], [0.5, 0.5]],
        ]
    )
    d = distances.pairwise_js(a, dtype=__import__("torch").float64)
    assert d[0, 1] == pytest.approx(math.log(2))
    # JS([1,0] || [.5,.5]): m = [.75, .25]; H(m) - (H(p) + H(q)) / 2
    h_m = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    expected = h_m - (0 + math.log(2)) / 2
    assert expected == pytest.approx(0.215762, abs=1e-6)
    assert d[0, 2] == pytest.approx(expected)
    assert d[1, 2] == pytest.approx(expected)


def test_js_blocks_give_the_same_answer():
    rng = np.random.default_rng(1)
    a = rng.dirichlet(np.ones(6), size=(9, 6))
    whole = distances.pairwise_js(a)
    blocked = distances.pairwise_js(a, block_elems=1)  # one row of heads at a time
    np.testing.assert_allclose(whole, blocked, rtol=1e-6, atol=1e-9)


def test_smoothing_mixes_with_uniform():
    import torch

    p = torch.tensor([[1.0, 0.0]])
    s = distances.smooth(p, 0.5)
    assert torch.allclose(s, torch.tensor([[0.75, 0.25]]))
    with pytest.raises(ValueError):
        distances.smooth(p, -1)


def test_surface_stats_and_behaviour():
    # the quantities behind the labels come from the surface module (Clark sec. 3 tables)
    from analysis.shared.attention_stats import relative_position_stats, special_tokens_stats

    # 1 layer, 2 heads, n = 3 tokens "C O S"; head 0 attends to the next token, head 1 to [SEP]
    nxt = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 1.0]])
    sep = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 1.0]])
    attn = np.stack([nxt, sep])[None]
    s = {**relative_position_stats(attn), **special_tokens_stats(attn, "COS")}
    assert s["next"][0, 0] == 2 and s["n_next"][0, 0] == 2
    assert s["sep"][0, 1] == 3 and s["cls"][0, 1] == 0
    row = dict(next=1.0, prev=0.0, cls=0.0, sep=1 / 3, punct=0.0, entropy_ratio=0.0)
    assert points.behaviour(row, THRESHOLDS) == "next"
    row = dict(next=0.1, prev=0.0, cls=0.0, sep=0.9, punct=0.0, entropy_ratio=0.0)
    assert points.behaviour(row, THRESHOLDS) == "sep"
    row = dict(next=0.1, prev=0.0, cls=0.0, sep=0.1, punct=0.0, entropy_ratio=0.95)
    assert points.behaviour(row, {**THRESHOLDS, "broad": 0.9}) == "broad"
    assert points.behaviour(row, {**THRESHOLDS, "broad": 0.99}) == "other"


def test_distance_table_is_tidy_and_mds_seeded():
    d = np.array([[0, 1, 2, 2], [1, 0, 2, 2], [2, 2, 0, 1], [2, 2, 1, 0.0]])
    t = distances.distance_table(d, n_heads=2)
    assert list(t.columns) == ["layer_a", "head_a", "layer_b", "head_b", "js_sum"]
    assert len(t) == 16
    assert t.query("layer_a == 1 and head_a == 2 and layer_b == 2 and head_b == 1").js_sum.item() == 2
    xy1, _ = points.mds_embedding(d, seed=3)
    xy2, _ = points.mds_embedding(d, seed=3)
    np.testing.assert_array_equal(xy1, xy2)
    pts = pd.DataFrame(xy1, columns=["x", "y"])
    near = np.linalg.norm(pts.iloc[0] - pts.iloc[1])
    far = np.linalg.norm(pts.iloc[0] - pts.iloc[2])
    assert near < far


def test_behaviour_table_from_the_surface_tables():
    import pandas as pd

    keys = {"layer": [1, 1], "head": [2, 1]}  # out of order on purpose
    rp = pd.DataFrame({**keys, "prev": [0.1, 0.7], "current": [0.1, 0.1], "next": [0.2, 0.1]})
    st = pd.DataFrame({**keys, "cls": [0.0, 0.1], "sep": [0.6, 0.0], "punct": [0.1, 0.0]})
    en = pd.DataFrame({**keys, "entropy": [1.0, 0.5], "uniform_entropy": [2.0, 2.0]})
    t = points.behaviour_table(rp, st, en)
    assert t["head"].tolist() == [1, 2] and t.entropy_ratio.tolist() == [0.25, 0.5]
    assert [points.behaviour(r, THRESHOLDS) for _, r in t.iterrows()] == ["prev", "sep"]


def test_head_points_in_layer_major_order():
    keys = {"layer": [1, 1, 2, 2], "head": [1, 2, 1, 2]}
    heads = pd.DataFrame({**keys, "next": [0.9, 0, 0, 0], "prev": [0, 0.9, 0, 0], "cls": [0, 0, 0.9, 0]})
    heads = heads.assign(sep=0.0, punct=0.0, entropy_ratio=0.0)
    xy = np.arange(8.0).reshape(4, 2)
    pts = points.head_points(heads.copy(), xy, n_layers=2, n_heads=2, thresholds=THRESHOLDS)
    assert pts.behaviour.tolist() == ["next", "prev", "cls", "other"]
    assert pts.x.tolist() == [0, 2, 4, 6] and pts.y.tolist() == [1, 3, 5, 7]
    with pytest.raises(ValueError, match="not the 2 x 3"):
        points.head_points(heads.copy(), xy, n_layers=2, n_heads=3, thresholds=THRESHOLDS)


def test_plot_head_clusters_names_the_special_tokens():
    from analysis.shared.plots import close

    pts = pd.DataFrame({"layer": [1, 2], "head": [1, 1], "x": [0.0, 1.0], "y": [1.0, 0.0], "behaviour": ["cls", "sep"]})
    fig = plots.plot_head_clusters(pts, "m", 2, "", cls_token="<s>", sep_token="</s>")
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["<s> (1)", "</s> (1)"]
    assert points.BEHAVIOUR_LABELS["cls"] == "[CLS]"  # the module's labels are left alone
    close(fig)


def test_head_distances_sum_the_shards_and_count_their_segments():
    parts = [{"js": np.array([[0.0, 1.0], [1.0, 0.0]])}, {"js": np.array([[0.0, 2.0], [2.0, 0.0]])}]
    metas = [
        {"js_segments": 2, "js_tokens": 10, "smoothing_eps": 0.0, "examples": 3},
        {"js_segments": 1, "js_tokens": 5, "smoothing_eps": 0.0, "examples": 4},
    ]
    dist, counts = distances.head_distances(parts, metas)
    assert dist.tolist() == [[0.0, 3.0], [3.0, 0.0]]
    assert counts == {
        "segments": 3,
        "tokens": 15,
        "smoothing_eps": 0.0,
        "segments_available": 7,
        "segments_skipped": 4,
    }
    none = [{**m, "js_segments": 0} for m in metas]
    with pytest.raises(ValueError, match="no segments"):
        distances.head_distances(parts, none)


def test_layer_distances_are_the_mean_over_the_head_pairs():
    # 2 layers x 2 heads; within layer 1 the pair (1, 2) at 2, within layer 2 at 4, across every pair at 3
    d = np.array([[0, 2, 3, 3], [2, 0, 3, 3], [3, 3, 0, 4], [3, 3, 4, 0.0]])
    t = distances.layer_distances(d, 2, 2)
    # within a layer: (2 + 2) / (2 x 1) pairs; across: 4 x 3 / (2 x 2) pairs
    assert t.mean_js_sum.tolist() == [2.0, 3.0, 3.0, 4.0] and t.pairs.tolist() == [2, 4, 4, 2]


def test_replicate_blocks_weigh_each_segment_by_its_draws():
    units = np.array([[[1.0, 2.0], [3.0, 4.0]], [[10.0, 20.0], [30.0, 40.0]]])
    boot = distances.replicate_blocks(units, np.array([[2, 0], [1, 1]]))
    assert boot.tolist() == [[[2, 4], [6, 8]], [[11, 22], [33, 44]]]


def test_layer_replicates_of_one_segment_repeat_it():
    # one segment: every replicate draws it once; 2 heads per layer: 2 pairs within a layer, 4 across
    parts = [{"unit.js_layers": np.array([[[0.0, 6.0], [6.0, 2.0]]])}]
    boot = distances.layer_replicates(parts, n_heads=2, resamples=3, seed=0)
    assert boot.columns.tolist() == ["layer_a", "layer_b", "mean_js_sum", "replicate"]
    assert boot.mean_js_sum.tolist() == [0.0, 1.5, 1.5, 1.0] * 3
    assert boot.replicate.tolist() == [0] * 4 + [1] * 4 + [2] * 4
    with pytest.raises(ValueError, match="rerun surface_sums"):
        distances.layer_replicates([{"js": np.zeros((4, 4))}], n_heads=2, resamples=3, seed=0)


def test_cluster_points_keep_the_distance_and_label_each_head():
    keys = {"layer": [1, 1], "head": [1, 2]}
    rp = pd.DataFrame({**keys, "prev": [0.9, 0.0], "next": [0.0, 0.0]})
    st = pd.DataFrame({**keys, "cls": [0.0, 0.0], "sep": [0.0, 0.0], "punct": [0.0, 0.0]})
    en = pd.DataFrame({**keys, "entropy": [0.1, 1.8], "uniform_entropy": [2.0, 2.0]})
    pts, stress = points.cluster_points(np.array([[0.0, 3.0], [3.0, 0.0]]), (rp, st, en), 1, 2, THRESHOLDS, seed=0)
    # two heads 3 apart: two points 3 apart (no stress); head 1 looks back, head 2 is broad (1.8 / 2 > 0.7)
    assert math.dist(pts.loc[0, ["x", "y"]], pts.loc[1, ["x", "y"]]) == pytest.approx(3.0)
    assert stress == pytest.approx(0.0, abs=1e-9)
    assert pts.behaviour.tolist() == ["prev", "broad"]
    counts = points.point_counts(pts, stress, THRESHOLDS)
    assert counts["behaviours"] == {"prev": 1, "broad": 1} and counts["thresholds"] == THRESHOLDS
