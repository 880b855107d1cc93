"""The figure of the dependency probes (Clark et al. 2019 sec. 5, Table 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.clark.probes.control_task import SUFFIX
from analysis.shared.plots import new_figure


def _chosen_label(row) -> str:
    """'lr 0.02, 6 ep.' for a trained probe (its chosen learning rate and epochs), '' otherwise."""
    lr, ep = row.get("lr", np.nan), row.get("epochs", np.nan)
    return "" if pd.isna(lr) or pd.isna(ep) else f"lr {lr:g}, {int(ep)} ep."


def plot_probes(table: pd.DataFrame, curves: pd.DataFrame, model: str, dev_name: str, n_train: int, n_dev: int):
    """Left: dev UAS of every probe (the probes table) with the paper's numbers as diamonds and
    each probe's chosen learning rate and epochs (a probe's accuracy on the control task in grey);
    right: held-out UAS (train sentences held out)
    per epoch at the chosen learning rate, the chosen epoch circled."""
    fig, axes = new_figure(10, 3.8, ncols=2, style="plain", gridspec_kw={"width_ratios": [1.1, 1]})
    ax = axes[0]
    y = np.arange(len(table))[::-1]
    task = table.probe.str.endswith(SUFFIX).to_numpy()  # beyond the paper: the control task's accuracy
    ax.barh(y[~task], 100 * table.uas[~task], color="C0", label=f"{model}")
    if task.any():
        ax.barh(y[task], 100 * table.uas[task], color="C7", label="control task (Hewitt & Liang 2019)")
    ax.scatter(table.paper_uas, y, color="k", marker="D", zorder=3, label="Clark et al. (bert-base, PTB-SD)")
    for yi, (_, row) in zip(y, table.iterrows()):
        u, paper = row.uas, row.paper_uas
        inside = u > 0.15  # label at the bar's start, clear of the paper's marker near its end
        text = f"{100 * u:.1f}" + (f"  ({_chosen_label(row)})" if _chosen_label(row) else "")
        ax.text(
            1.5 if inside else np.nanmax([100 * u, paper]) + 2,
            yi,
            text,
            va="center",
            fontsize=7,
            ha="left",
            color="white" if inside else "black",
        )
    ax.set_yticks(y)
    ax.set_yticklabels(table.probe, fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("dev UAS (%; grey: control-task accuracy), punctuation excluded (each scored once)", fontsize=9)
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    ax = axes[1]
    chosen = curves[curves.chosen.astype(bool)] if "chosen" in curves else curves.iloc[:0]
    on_task = curves.probe.str.endswith(SUFFIX)  # the control task's curves: in the csv, not drawn
    for k, (name, sub) in enumerate(curves[~on_task].groupby("probe", sort=False)):
        pick = chosen[chosen.probe == name]
        lr = pick.lr.iloc[0] if len(pick) else sub.lr.iloc[0]
        line = sub[sub.lr == lr]
        ax.plot(line.epoch, 100 * line.heldout_uas, marker="o", ms=3, color=f"C{k}", label=f"{name} (lr {lr:g})")
        if len(pick):
            ax.scatter(pick.epoch, 100 * pick.heldout_uas, s=80, facecolors="none", edgecolors=f"C{k}", zorder=3)
    ax.set_xlabel("epoch", fontsize=9)
    ax.set_ylabel("held-out train UAS (%)", fontsize=9)
    ax.set_title("choosing lr and epochs on held-out train sentences (circled)", fontsize=9)
    ax.legend(fontsize=6)
    for a in axes:
        a.tick_params(labelsize=8)
    vectors = f"; {table.vectors.iloc[0]}" if "vectors" in table else ""
    fig.suptitle(
        f"{model}: attention probes on {dev_name} ({n_train} train / {n_dev} dev sentences{vectors})", fontsize=10
    )
    fig.tight_layout()
    return fig
