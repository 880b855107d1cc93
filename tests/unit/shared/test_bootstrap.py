"""The cluster bootstrap's weights (analysis.shared.bootstrap.cluster_weights)."""

from analysis.shared.bootstrap import cluster_weights, unit_weights


def test_two_clusters_of_one_and_two_units_by_hand():
    # numpy's default_rng(0).integers(0, 2, size=(3, 2)) draws the clusters [[1, 1], [1, 0], [0, 0]]
    # (cluster 0 = "a", the first seen; cluster 1 = "b"): replicate 0 draws b twice, replicate 1 a
    # and b once each, replicate 2 a twice; both units of b always share its count
    w = cluster_weights(["a", "b", "b"], 3, 0)
    assert w.tolist() == [[0, 2, 2], [1, 1, 1], [2, 0, 0]]
    # a replicate's total is the sum of its drawn clusters' sizes: 2 + 2, 1 + 2, 1 + 1
    assert w.sum(1).tolist() == [4, 3, 2]


def test_units_of_a_cluster_share_their_weight_and_clusters_drawn_sum_to_their_count():
    clusters = ["x", "y", "x", "z", "y", "x"]
    w = cluster_weights(clusters, 50, 7)
    assert w.shape == (50, 6) and w.dtype.kind == "i"
    assert (w[:, 0] == w[:, 2]).all() and (w[:, 0] == w[:, 5]).all() and (w[:, 1] == w[:, 4]).all()
    # each replicate draws three clusters: the weights of one unit per cluster sum to 3
    assert (w[:, [0, 1, 3]].sum(1) == 3).all()


def test_singleton_clusters_are_the_unit_bootstrap():
    assert (cluster_weights([f"s{i}" for i in range(9)], 40, 3) == unit_weights(9, 40, 3)).all()
    assert (cluster_weights(list(range(5)), 10, 0) == unit_weights(5, 10, 0)).all()


def test_seeded():
    c = ["a", "a", "b", "c"]
    assert (cluster_weights(c, 20, 1) == cluster_weights(c, 20, 1)).all()
    assert not (cluster_weights(c, 20, 1) == cluster_weights(c, 20, 2)).all()
    assert cluster_weights([], 4, 0).shape == (4, 0)


def test_a_clustered_replicate_table_says_how_many_clusters_it_drew():
    import pandas as pd

    from analysis.shared.bootstrap import RESAMPLED, n_clusters, with_resampled

    clusters = ["a", "a", "b", "c", "c", "c"]
    assert n_clusters(clusters) == 3
    table = with_resampled(pd.DataFrame({"replicate": [0, 1], "v": [1.0, 2.0]}), n_clusters(clusters))
    assert table[RESAMPLED].tolist() == [3, 3] and table["v"].tolist() == [1.0, 2.0]
