"""Figures of rules/beyond_papers.smk (rollout, head_importance)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from analysis.shared.plots import new_figure

METHOD_LABELS = {
    "raw": "raw attention (last layer)",
    "rollout": "attention rollout",
    "flow": "attention flow",
    "erasure": "erasure: drop in P(predicted class)",
}


def plot_rollout_example(tokens: pd.DataFrame, title: str):
    """One input: per token, raw last-layer attention, rollout and flow from the [CLS]-like
    position, and the erasure importance (special tokens grey, never erased)."""
    methods = [m for m in ("raw", "rollout", "flow", "erasure") if tokens[m].notna().any()]
    n = len(tokens)
    fig, axes = new_figure(max(4.5, 0.28 * n + 1.2), 1.25 * len(methods) + 0.6, nrows=len(methods), sharex=True)
    axes = np.atleast_1d(axes)
    colours = np.where(tokens.special.to_numpy(), "0.7", "C0")
    special = tokens.special.to_numpy()
    for ax, method in zip(axes, methods):
        values = tokens[method].fillna(0.0).to_numpy()
        ax.bar(np.arange(n), values, color=colours if method != "erasure" else np.where(values >= 0, "C3", "C2"))
        ax.axhline(0, color="0.3", lw=0.6)
        top = 1.25 * values[~special].max() if (~special).any() else 0.0
        if method != "erasure" and top > 0 and values[special].max() > top:
            # special tokens (rollout: [CLS] keeps most of its own mass) would flatten the bars
            # that are compared: clip them, value written on the bar
            ax.set_ylim(0, top)
            for x in np.flatnonzero(special & (values > top)):
                ax.text(x, 0.97 * top, f"{values[x]:.2f}", ha="center", va="top", fontsize=6, rotation=90)
        ax.set_ylabel(METHOD_LABELS[method].split(":")[0].replace(" (last layer)", "\n(last layer)"), fontsize=7)
        ax.set_title(METHOD_LABELS[method], fontsize=7, loc="left")
    axes[-1].set_xticks(np.arange(n))
    axes[-1].set_xticklabels(tokens.token, rotation=70, fontsize=7)
    axes[-1].set_xlabel("input token (grey: special, not erased)")
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    return fig


def plot_rollout_spearman(per_input: pd.DataFrame, summary: pd.DataFrame, title: str):
    """Distribution over inputs of the Spearman correlation of each attention score with the
    erasure importance (box, points per input, median printed)."""
    methods = [m for m in ("raw", "rollout", "flow") if (per_input.method == m).any()]
    fig, ax = new_figure(4.6, 3.0)
    rng = np.random.default_rng(0)
    for x, method in enumerate(methods):
        rho = per_input.loc[per_input.method == method, "spearman"].dropna().to_numpy()
        ax.boxplot([rho], positions=[x], widths=0.5, showfliers=False)
        ax.scatter(x + rng.uniform(-0.18, 0.18, len(rho)), rho, s=6, alpha=0.45, color=f"C{x}", linewidths=0)
        row = summary.set_index("method").loc[method]
        ax.text(
            x,
            1.04,
            f"median {row['median']:.2f}\nn={int(row.inputs - row.undefined)}",
            ha="center",
            va="bottom",
            fontsize=6.5,
        )
    ax.axhline(0, color="0.3", lw=0.6)
    ax.set_xticks(range(len(methods)))
    ax.set_xticklabels([METHOD_LABELS[m] for m in methods], fontsize=7)
    ax.set_ylim(-1.05, 1.3)
    ax.set_ylabel("Spearman with erasure importance\n(per input, non-special tokens)")
    ax.set_title(title, fontsize=8)
    fig.tight_layout()
    return fig


def importance_label(table: pd.DataFrame) -> str:
    """The importance axis as the scores were computed (rule head_importance_scores' columns)."""
    per = f"per {table.abs_per.iloc[0]}" if "abs_per" in table else "per example"
    split = f", {table.split.iloc[0]} rows" if "split" in table else ""
    normalised = "importance_raw" in table and not table.importance.equals(table.importance_raw)
    return f"importance (log): mean |dL/d gate|\n{per}{split}" + ("\nL2-normalised per layer" if normalised else "")


def plot_head_importance(merged: pd.DataFrame, rho: pd.DataFrame, title: str):
    """Per task, one point per head: gradient importance against the drop of the dev score
    when that head alone is disabled (Kovaleva's uniform attention)."""
    tasks = list(dict.fromkeys(merged.task))
    fig, axes = new_figure(2.6 * len(tasks), 2.6, ncols=len(tasks), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        g = merged[merged.task == task]
        r = rho.set_index("task").loc[task]
        ax.scatter(g.importance, -g.change, s=10, alpha=0.7, c=g.layer, cmap="viridis", linewidths=0)
        ax.axhline(0, color="0.3", lw=0.6)
        rho_text = (
            "undefined (no score change)" if np.isnan(r.spearman_vs_score_drop) else f"{r.spearman_vs_score_drop:.2f}"
        )
        ax.set_title(f"{task}: Spearman {rho_text}", fontsize=8)
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())  # labelled minor ticks overlap on narrow ranges
        ax.set_xlabel(importance_label(g))
        ax.set_ylabel(f"drop of dev {r.disabled_metric}\nwhen the head is disabled")
    sm = axes[0, -1].collections[0]
    layers = sorted(merged.layer.unique())
    fig.colorbar(sm, ax=axes[0, -1], label="layer", ticks=layers[:: max(1, len(layers) // 6)])
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    return fig


def plot_head_pruning(curves: pd.DataFrame, title: str):
    """Per task: main dev metric after removing heads in ascending importance, against
    seeded random orders (each draw thin, their mean thick)."""
    main = curves[curves.main_metric]
    tasks = list(dict.fromkeys(main.task))
    fig, axes = new_figure(2.6 * len(tasks), 2.5, ncols=len(tasks), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        g = main[main.task == task]
        rand = g[g.order == "random"]
        for _, d in rand.groupby("draw"):
            ax.plot(d.fraction * 100, d.score, color="0.6", lw=0.6, alpha=0.7)
        if len(rand):
            mean = rand.groupby("fraction").score.mean()
            ax.plot(
                mean.index * 100,
                mean.to_numpy(),
                color="0.3",
                lw=1.4,
                label=f"random order ({rand.draw.nunique()} draws, mean)",
            )
        imp = g[g.order == "importance"]
        ax.plot(imp.fraction * 100, imp.score, color="C3", lw=1.6, marker="o", ms=3, label="ascending importance")
        ax.set_title(task, fontsize=8)
        ax.set_xlabel("heads removed (%)")
        ax.set_ylabel(f"dev {g.metric.iloc[0]}")
    axes[0, 0].legend(fontsize=6, loc="lower left")
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    return fig
