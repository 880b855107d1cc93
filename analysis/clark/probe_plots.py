"""The figure of the dependency probes (Clark et al. 2019 sec. 5, Table 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.shared.plots import new_figure


def plot_probes(table: pd.DataFrame, curves: pd.DataFrame, model: str, dev_name: str, n_train: int, n_dev: int):
    """Left: dev UAS of every probe (the probes table) with the paper's numbers as diamonds;
    right: dev UAS per epoch (the training curves)."""
    fig, axes = new_figure(10, 3.6, ncols=2, style="plain", gridspec_kw={"width_ratios": [1.1, 1]})
    ax = axes[0]
    y = np.arange(len(table))[::-1]
    ax.barh(y, 100 * table.uas, color="C0", label=f"{model}")
    ax.scatter(table.paper_uas, y, color="k", marker="D", zorder=3, label="Clark et al. (bert-base, PTB-SD)")
    for yi, u in zip(y, table.uas):
        inside = u > 0.15  # label at the bar's start, clear of the paper's marker near its end
        ax.text(
            1.5 if inside else 100 * u + 1,
            yi,
            f"{100 * u:.1f}",
            va="center",
            fontsize=8,
            ha="left",
            color="white" if inside else "black",
        )
    ax.set_yticks(y)
    ax.set_yticklabels(table.probe, fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("dev UAS (%), punctuation excluded", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("dependency probes", fontsize=10)
    ax = axes[1]
    for name, sub in curves.groupby("probe", sort=False):
        ax.plot(sub.epoch, 100 * sub.dev_uas, marker="o", ms=3, label=name)
    ax.set_xlabel("epoch", fontsize=9)
    ax.set_ylabel("dev UAS (%)", fontsize=9)
    ax.set_title("training curves", fontsize=10)
    ax.legend(fontsize=7)
    for a in axes:
        a.tick_params(labelsize=8)
    fig.suptitle(f"{model}: attention probes on {dev_name} ({n_train} train / {n_dev} dev sentences)", fontsize=10)
    fig.tight_layout()
    return fig
