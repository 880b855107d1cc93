import numpy as np
import pytest

from analysis.core.word_level import units, word_maps


def test_units_keep_specials_separate():
    u, w = units([-1, 0, 0, 1, -1, 2, -1])
    assert u.tolist() == [0, 1, 1, 2, 3, 4, 5]
    assert w.tolist() == [-1, 0, 1, -1, 2, -1]


def hand_map():
    # pieces: [CLS] play ##ing ball [SEP]; words: playing (pieces 1,2), ball (piece 3)
    a = np.array(
        [
            [0.2, 0.2, 0.2, 0.2, 0.2],
            [0.1, 0.0, 0.3, 0.5, 0.1],
            [0.0, 0.4, 0.0, 0.2, 0.4],
            [0.5, 0.25, 0.25, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0, 1.0],
        ],
        dtype=np.float64,
    )
    return a, [-1, 0, 0, 1, -1]


def test_mean_from_sum_to():
    a, wid = hand_map()
    m, w = word_maps(a, wid, "mean")
    assert w.tolist() == [-1, 0, 1, -1]
    # TO 'playing' = sum of its pieces; FROM 'playing' = mean of its two rows
    assert m[0, 1] == pytest.approx(0.4)
    assert m[1].tolist() == pytest.approx([0.05, 0.35, 0.35, 0.25])
    assert m[2].tolist() == pytest.approx([0.5, 0.5, 0.0, 0.0])
    assert np.allclose(m.sum(-1), 1)


def test_first_and_max():
    a, wid = hand_map()
    first, _ = word_maps(a, wid, "first")
    assert first[1].tolist() == pytest.approx([0.1, 0.3, 0.5, 0.1])
    mx, _ = word_maps(a, wid, "max")
    # element-wise max of rows [0.1, .3, .5, .1] and [0, .4, .2, .4] = [.1, .4, .5, .4] -> / 1.4
    assert mx[1].tolist() == pytest.approx(np.array([0.1, 0.4, 0.5, 0.4]) / 1.4)
    assert np.allclose(mx.sum(-1), 1)


def test_batched_layers_heads_and_errors():
    a, wid = hand_map()
    stacked = np.stack([np.stack([a, a])] * 3)  # (3, 2, 5, 5)
    m, _ = word_maps(stacked, wid)
    assert m.shape == (3, 2, 4, 4)
    with pytest.raises(ValueError):
        word_maps(a, wid, "median")
    with pytest.raises(ValueError):
        word_maps(a, wid[:-1])
