import numpy as np
import pandas as pd
import pytest

from analysis.clark.surface import plots as surface_plots
from analysis.clark.surface.examples import example_maps, example_segment, pick_example_heads, pick_example_segment
from analysis.shared.attention_stats import (
    accumulate,
    entropy_rows,
    entropy_stats,
    per_head_table,
    relative_position_stats,
    sep_attention_stats,
    special_tokens_stats,
)


def maps_1x2():
    """One layer, two heads, 4 tokens: [CLS] a . [SEP].
    head 0: every token attends to the previous one (the first to itself);
    head 1: every token attends 1/2 to [CLS] and 1/2 to [SEP]."""
    a = np.zeros((1, 2, 4, 4), dtype=np.float32)
    a[0, 0, 0, 0] = 1
    for i in range(1, 4):
        a[0, 0, i, i - 1] = 1
    a[0, 1, :, 0] = 0.5
    a[0, 1, :, 3] = 0.5
    return a, "COPS"


class Ex:
    def __init__(self, attn, kinds):
        self.attn, self.kinds = attn, kinds


def test_relative_position_by_hand():
    a, _ = maps_1x2()
    s = relative_position_stats(a)
    t = per_head_table(s)
    # head 1 (1-indexed): prev = 3 of 3 rows, current = 1 of 4 rows, next = 0
    assert t.loc[0, ["layer", "head"]].tolist() == [1, 1]
    assert t.loc[0, "prev"] == pytest.approx(1.0)
    assert t.loc[0, "current"] == pytest.approx(0.25)
    assert t.loc[0, "next"] == pytest.approx(0.0)
    # head 2: prev: rows 1..3 -> a[1,0]=.5, a[2,1]=0, a[3,2]=0 -> 0.5/3
    assert t.loc[1, "prev"] == pytest.approx(0.5 / 3)
    # current: a[0,0]=.5 + a[3,3]=.5 -> 1/4
    assert t.loc[1, "current"] == pytest.approx(0.25)
    # next: a[2,3]=.5 -> 0.5/3
    assert t.loc[1, "next"] == pytest.approx(0.5 / 3)


def test_special_tokens_by_hand():
    a, kinds = maps_1x2()
    t = per_head_table(special_tokens_stats(a, kinds))
    # head 1: rows attend to col 0 ([CLS]) from rows 0,1 -> 2/4; col 1 is 'a' (O); col 2 '.' from row 3 -> 1/4
    assert t.loc[0, "cls"] == pytest.approx(0.5)
    assert t.loc[0, "punct"] == pytest.approx(0.25)
    assert t.loc[0, "sep"] == pytest.approx(0.0)
    assert t.loc[1, "cls"] == pytest.approx(0.5)
    assert t.loc[1, "sep"] == pytest.approx(0.5)
    assert t.loc[1, "n_tokens"] == 4


def test_sep_attention_by_hand():
    a, kinds = maps_1x2()
    t = per_head_table(sep_attention_stats(a, kinds))
    assert t.loc[0, "sep_from_sep"] == pytest.approx(0.0)  # [SEP] attends to '.'
    assert t.loc[1, "sep_from_sep"] == pytest.approx(0.5)
    assert t.loc[1, "sep_from_other"] == pytest.approx(0.5)
    assert (t.n_sep_rows == 1).all() and (t.n_other_rows == 3).all()
    # to [CLS]: head 1's [CLS] attends to itself (1); of the 3 other rows only 'a' attends to it (1/3);
    # head 2: every row gives [CLS] 1/2
    assert t.cls_from_cls.tolist() == pytest.approx([1.0, 0.5])
    assert t.cls_from_other.tolist() == pytest.approx([1 / 3, 0.5])
    assert (t.n_cls_rows == 1).all() and (t.n_noncls_rows == 3).all()


def test_entropy_by_hand():
    a, kinds = maps_1x2()
    t = per_head_table(entropy_stats(a, kinds))
    assert t.loc[0, "entropy"] == pytest.approx(0.0)
    assert t.loc[1, "entropy"] == pytest.approx(np.log(2))
    assert t.loc[1, "entropy_cls"] == pytest.approx(np.log(2))
    assert t.loc[0, "uniform_entropy"] == pytest.approx(np.log(4))
    assert t.loc[0, "uniform_entropy_cls"] == pytest.approx(np.log(4))


def test_entropy_of_uniform_rows_is_log_n():
    a = np.full((1, 1, 5, 5), 0.2)
    assert entropy_rows(a) == pytest.approx(np.full((1, 1, 5), np.log(5)))


def test_accumulate_weights_tokens_not_segments():
    a, kinds = maps_1x2()
    b = np.zeros((1, 2, 2, 2), dtype=np.float32)
    b[..., :, 1] = 1  # both rows attend to the 2nd token: prev = 1 of 1 row in head 1
    sums, n = accumulate([Ex(a, kinds), Ex(b, "CS")], relative_position_stats)
    t = per_head_table(sums)
    assert n == 2
    # head 1: prev = (3 + 0) / (3 + 1): b's row 1 attends to itself, not to token 0
    assert t.loc[0, "prev"] == pytest.approx(3 / 4)
    assert t.loc[0, "n_prev"] == 4


def test_accumulate_needs_examples():
    with pytest.raises(ValueError):
        accumulate([], relative_position_stats)


def test_pick_example_heads():
    rp = pd.DataFrame({"layer": [1, 1, 2], "head": [1, 2, 1], "prev": [0.1, 0.9, 0.2], "next": [0.5, 0.0, 0.1]})
    st = pd.DataFrame(
        {"layer": [1, 1, 2], "head": [1, 2, 1], "cls": [0.1, 0.2, 0.8], "sep": [0.3, 0, 0], "punct": [0, 0.6, 0]}
    )
    en = pd.DataFrame({"layer": [1, 1, 2], "head": [1, 2, 1], "entropy": [1.0, 3.0, 2.0]})
    p = pick_example_heads({"relative_position": rp, "special_tokens": st, "entropy": en}).set_index("behaviour")
    assert tuple(p.loc["prev", ["layer", "head"]]) == (1, 2)
    assert tuple(p.loc["next", ["layer", "head"]]) == (1, 1)
    assert tuple(p.loc["cls", ["layer", "head"]]) == (2, 1)
    assert tuple(p.loc["broad", ["layer", "head"]]) == (1, 2)


def test_pick_example_segment():
    assert pick_example_segment([50, 30, 38, 20], "auto", 40) == 2
    assert pick_example_segment([50, 30, 38, 20], "auto", 40, eligible=[True, True, False, True]) == 1
    assert pick_example_segment([50, 60], "auto", 40) == 0
    assert pick_example_segment([50, 60], 1, 40) == 1
    with pytest.raises(ValueError):
        pick_example_segment([50, 60], 5, 40)


def test_example_segment_reads_the_shard_index():
    class FakeShard:
        def metadata(self):
            return iter([{"n": 50}, {"n": 30}, {"n": 38, "meta": {"ab_boundary": "word"}}, {"n": 20}])

    class FakeShards:
        shards = [FakeShard()]

        def __iter__(self):
            return iter(["ex0", "ex1", "ex2", "ex3"])

    assert example_segment(FakeShards(), "auto", 40) == "ex1"  # 38 fits but its A/B split is not at a sentence
    assert example_segment(FakeShards(), 3, 40) == "ex3"


def test_example_maps_hold_every_drawn_value():
    a, _ = maps_1x2()
    picked = pd.DataFrame({"behaviour": ["prev", "sep"], "layer": [1, 1], "head": [1, 2], "value": [0.9, 0.5]})
    maps = example_maps(picked, a, ["[CLS]", "a", ".", "[SEP]"], 3, "seg")
    assert list(maps.columns) == [
        "behaviour",
        "layer",
        "head",
        "from_index",
        "to_index",
        "attention",
        "from_token",
        "to_token",
        "segment",
    ]
    assert len(maps) == 2 * 3 * 3 and (maps.segment == "seg").all()
    row = maps[(maps.behaviour == "prev") & (maps.from_index == 2) & (maps.to_index == 1)]
    assert row.attention.item() == 1.0 and row.from_token.item() == "." and row.to_token.item() == "a"
    assert maps[maps.behaviour == "sep"].attention.sum() == pytest.approx(3 * 0.5)  # [SEP] column cut by the window


def test_surface_figures_draw():
    from analysis.shared.plots import close

    a, kinds = maps_1x2()
    stats = {}
    for f in (relative_position_stats, special_tokens_stats, sep_attention_stats, entropy_stats):
        stats.update(f(a, kinds) if f is not relative_position_stats else f(a))
    t = per_head_table(stats)
    picked = pick_example_heads({"relative_position": t, "special_tokens": t, "entropy": t})
    for panels, fig in [
        (3, surface_plots.plot_relative_position(t, "m", 1)),
        (3, surface_plots.plot_special_tokens(t, "m", 1, "[CLS]", "[SEP]")),
        (1, surface_plots.plot_sep_attention(t, "m", 1, "[SEP]")),
        (2, surface_plots.plot_entropy(t, "m", 1, "[CLS]")),
        (6, surface_plots.plot_example_heads(picked, a, ["[CLS]", "a", ".", "[SEP]"], 4, "m", "s", "[CLS]", "[SEP]")),
    ]:
        assert len([ax for ax in fig.axes if ax.get_label() != "<colorbar>"]) == panels
        close(fig)


def test_local_layers_are_marked_on_the_layer_axes():
    import matplotlib.pyplot as plt
    import pandas as pd

    from analysis.clark.surface.plots import plot_entropy, plot_relative_position

    rows = [{"layer": lay, "head": h, "entropy": 1.0, "uniform_entropy": 2.0, "entropy_cls": 1.0,
             "uniform_entropy_cls": 2.0, "prev": 0.1, "current": 0.2, "next": 0.3}
            for lay in (1, 2, 3) for h in (1, 2)]  # fmt: skip
    t = pd.DataFrame(rows)
    fig = plot_entropy(t, "m", 4, "[CLS]", local=[2, 3])
    assert [x.get_text() for x in fig.axes[0].get_xticklabels()] == ["1", "2\nlocal", "3\nlocal"]
    plt.close(fig)
    fig = plot_relative_position(t, "m", 4, local=[2])
    assert [y.get_text() for y in fig.axes[0].get_yticklabels()] == ["1", "2 local", "3"]
    plt.close(fig)
    fig = plot_entropy(t, "m", 4, "[CLS]")  # no local layer: the plain axis
    assert [x.get_text() for x in fig.axes[0].get_xticklabels()] == ["1", "2", "3"]
    plt.close(fig)
