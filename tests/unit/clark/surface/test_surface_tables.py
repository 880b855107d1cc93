"""SurfaceSums (analysis/clark/surface/tables.py): the sec. 3 rules' tables from the shards' sums,
as the per-head table, its layer means and the article-resampled replicate tables compose them."""

from types import SimpleNamespace

import pandas as pd
import pytest
from test_surface_sums import _write  # noqa: E402 (tests/unit/clark/surface, on sys.path beside it)

from analysis.clark.surface.boot import replicate_tables, segment_clusters
from analysis.clark.surface.sums import combine, shard_sums, write_sums
from analysis.clark.surface.tables import SurfaceSums
from analysis.core.storage import Shard
from analysis.shared.attention_stats import by_layer, per_head_table


@pytest.fixture
def sums_paths(tmp_path):
    paths, first = [], 0
    for k, lengths in enumerate([[7, 4, 5], [6, 8, 6]]):
        shard = Shard(_write(tmp_path, k, lengths, seed=10 * k))
        arrays, meta = shard_sums(shard, first, None, 0.0, "auto", 6)
        meta["header"] = {"model": "m", "cls_token": "[CLS]"}
        meta["articles"] = ["a", "a", "b"] if k == 0 else ["b", "c", "c"]  # articles span shards
        write_sums(arrays, meta, tmp_path / "sums" / f"shard-{k}.npz", tmp_path / "sums" / f"shard-{k}.json")
        paths.append(tmp_path / "sums" / f"shard-{k}.npz")
        first += len(shard)
    return paths


def test_the_tables_a_rule_writes(sums_paths, tmp_path):
    sums = SurfaceSums.read(sums_paths, resamples=20, seed=3)
    assert sums.n_examples == 6 and sums.header["model"] == "m"
    assert segment_clusters(sums.metas) == ["a", "a", "b", "b", "c", "c"]
    metrics = ["entropy", "entropy_cls"]
    out = SimpleNamespace(**{k: tmp_path / f"{k}.csv" for k in ("table", "layers", "layers_boot", "boot")})
    table = sums.write_tables("entropy", out, layers=metrics)
    want = per_head_table(combine(sums.parts, "entropy"))
    pd.testing.assert_frame_equal(table, want)
    pd.testing.assert_frame_equal(pd.read_csv(out.table), want, check_exact=False, rtol=1e-5, check_dtype=False)
    layers = pd.read_csv(out.layers)
    pd.testing.assert_frame_equal(layers, by_layer(want, metrics), check_exact=False, rtol=1e-5)
    boot = replicate_tables(sums.parts, "entropy", 20, 3, layers=metrics, clusters=["a", "a", "b", "b", "c", "c"])
    got = pd.read_csv(out.layers_boot)
    assert len(got) == 20 * len(layers) and (got["resampled_units"] == 3).all()  # three articles
    pd.testing.assert_frame_equal(got, boot["layers"], check_exact=False, rtol=1e-5, check_dtype=False)
    assert not out.boot.exists()  # no per-head metrics asked for
    sums.write_tables("relative_position", out, per_head=["prev"])
    heads = replicate_tables(
        sums.parts, "relative_position", 20, 3, per_head=["prev"], clusters=segment_clusters(sums.metas)
    )
    pd.testing.assert_frame_equal(
        pd.read_csv(out.boot), heads["heads"], check_exact=False, rtol=1e-5, check_dtype=False
    )


def test_the_own_calibration_makes_the_rules_tables_from_the_same_sums(sums_paths, tmp_path):
    """tools/measure/own_families.surface_family: with every weight 1, the layer means and per-head
    tables the sec. 3 rules write (and the depth columns the scorecard adds), articles as clusters."""
    import numpy as np

    from analysis.scorecard.values import with_depth
    from tools.measure.own_families import surface_family

    family = surface_family(sums_paths[0].parent)
    assert family.clusters.tolist() == [0, 0, 1, 1, 2, 2]  # articles a, b, c
    made = family.make(np.ones((1, 6)))
    sums = SurfaceSums.read(sums_paths, resamples=1, seed=0)
    layers = by_layer(sums.table("special_tokens"), ["cls", "sep", "punct"])
    got = made["special_tokens.by_layer"].drop(columns="replicate")
    pd.testing.assert_frame_equal(got, with_depth(layers), check_dtype=False)
    heads = sums.table("relative_position")[["layer", "head", "prev", "current", "next"]]
    got = made["relative_position"].drop(columns=["replicate", "relative_depth", "layers_from_end"])
    pd.testing.assert_frame_equal(got, heads, check_dtype=False)
