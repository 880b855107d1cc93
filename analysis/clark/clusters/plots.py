"""Clark et al. 2019 Fig. 6: the heads' MDS points (:mod:`analysis.clark.clusters.points`)
coloured by behaviour and by layer."""

from __future__ import annotations

import pandas as pd

from analysis.clark.clusters.points import BEHAVIOUR_LABELS, BEHAVIOURS
from analysis.shared.plots import new_figure


def plot_head_clusters(points: pd.DataFrame, model: str, n_layers: int, subtitle: str, cls_token: str, sep_token: str):
    """Clark Fig. 6: MDS points of the heads coloured by behaviour (legend names [CLS] and [SEP]
    as ``cls_token``, ``sep_token``) and by layer."""
    names = {**BEHAVIOUR_LABELS, "cls": cls_token, "sep": sep_token}
    fig, axes = new_figure(10, 4.6, ncols=2, style="plain", sharex=True, sharey=True)
    palette = dict(zip(BEHAVIOURS, ["#1f77b4", "#ff7f0e", "#d62728", "#9467bd", "#2ca02c", "#8c564b", "#bbbbbb"]))
    ax = axes[0]
    for b in BEHAVIOURS:
        sub = points[points.behaviour == b]
        if len(sub):
            ax.scatter(
                sub.x,
                sub.y,
                s=28,
                c=palette[b],
                label=f"{names[b]} ({len(sub)})",
                edgecolors="k",
                linewidths=0.3,
                zorder=3 if b != "other" else 2,
            )
    ax.set_title("coloured by behaviour", fontsize=10)
    ax.legend(fontsize=8, loc="best", framealpha=0.8)
    ax = axes[1]
    sc = ax.scatter(
        points.x, points.y, s=28, c=points.layer, cmap="viridis", vmin=1, vmax=n_layers, edgecolors="k", linewidths=0.3
    )
    cb = fig.colorbar(sc, ax=ax, ticks=range(1, n_layers + 1))
    cb.set_label("layer", fontsize=9)
    cb.ax.tick_params(labelsize=8)
    ax.set_title("coloured by layer", fontsize=10)
    for ax in axes:
        ax.set_xlabel("MDS dimension 1", fontsize=9)
        ax.tick_params(labelsize=8)
    axes[0].set_ylabel("MDS dimension 2", fontsize=9)
    fig.suptitle(f"{model}: heads embedded by Jensen-Shannon distance of their attention (MDS){subtitle}", fontsize=11)
    fig.tight_layout()
    return fig
