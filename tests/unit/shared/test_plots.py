"""The one figure style mechanism: every figure comes from new_figure in a named style."""

import matplotlib as mpl
import pytest

from analysis.shared.plots import close, new_figure, use_style


def test_styles_set_their_text_sizes_and_reset_each_other():
    use_style("plain-large")
    assert mpl.rcParams["font.size"] == 9 and mpl.rcParams["xtick.labelsize"] == 8
    use_style("paper")
    assert mpl.rcParams["font.size"] == 8 and mpl.rcParams["axes.grid"]  # seaborn whitegrid
    use_style("plain")
    assert mpl.rcParams["font.size"] == mpl.rcParamsDefault["font.size"] and not mpl.rcParams["axes.grid"]
    assert mpl.get_backend().lower() == "agg"  # rcdefaults leaves the backend alone


def test_new_figure_size_and_unknown_style():
    fig, axes = new_figure(4, 2, ncols=2, style="plain")
    assert tuple(fig.get_size_inches()) == (4, 2) and len(axes) == 2
    close(fig)
    with pytest.raises(ValueError, match="unknown figure style"):
        new_figure(1, 1, style="fancy")
