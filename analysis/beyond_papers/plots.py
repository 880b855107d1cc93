"""Figures of rules/beyond_papers.smk (rollout, head_importance)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from analysis.shared.plots import new_figure

METHOD_LABELS = {
    "raw": "raw attention",
    "rollout": "attention rollout",
    "flow": "attention flow",
    "gradient": "input gradient: |sum_d d logit(true label) / d e_t|",
    "blankout": "blank-out: |change of P(true label)|, token -> mask",
    "deletion": "deletion: drop in P(predicted class), token removed",
}
TARGET_TITLES = {
    "gradient": "input gradient (true label)",
    "blankout": "blank-out (token -> mask, length kept)",
    "deletion": "deletion (token removed)",
}


def plot_rollout_example(tokens: pd.DataFrame, targets: list[str], title: str):
    """One input at the last layer: per token, raw attention, rollout and flow (the
    protocol's scores: the [CLS]-like row or the maximum over rows) and each importance target
    (tokens not scored grey: special tokens under ``cls_row``)."""
    methods = [m for m in ("raw", "rollout", "flow", *targets) if tokens[m].notna().any()]
    n = len(tokens)
    fig, axes = new_figure(max(4.5, 0.28 * n + 1.2), 1.25 * len(methods) + 0.6, nrows=len(methods), sharex=True)
    axes = np.atleast_1d(axes)
    grey = ~tokens.scored.to_numpy()
    colours = np.where(grey, "0.7", "C0")
    for ax, method in zip(axes, methods):
        values = tokens[method].fillna(0.0).to_numpy()
        target = method in targets
        ax.bar(
            np.arange(n), values, color=np.where(grey, "0.7", np.where(values >= 0, "C3", "C2")) if target else colours
        )
        ax.axhline(0, color="0.3", lw=0.6)
        top = 1.25 * values[~grey].max() if (~grey).any() else 0.0
        if top > 0 and grey.any() and values[grey].max() > top:
            # tokens not scored (rollout: [CLS] keeps most of its own mass; its input gradient)
            # would flatten the bars that are compared: clip them, value written on the bar
            ax.set_ylim(min(0.0, 1.1 * values.min()), top)
            for x in np.flatnonzero(grey & (values > top)):
                ax.text(x, 0.97 * top, f"{values[x]:.2g}", ha="center", va="top", fontsize=6, rotation=90)
        ax.set_ylabel(METHOD_LABELS[method].split(":")[0].replace(" ", "\n", 1), fontsize=7)
        ax.set_title(
            METHOD_LABELS[method] + (f" (layer {tokens.layer.iloc[0]})" if not target else ""), fontsize=7, loc="left"
        )
    axes[-1].set_xticks(np.arange(n))
    axes[-1].set_xticklabels(tokens.token, rotation=70, fontsize=7)
    axes[-1].set_xlabel("input token (grey: not scored, special tokens)" if grey.any() else "input token")
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    return fig


def plot_rollout_spearman(summary: pd.DataFrame, title: str):
    """One panel per importance target: mean over inputs of the per-input Spearman correlation
    of raw attention (layer l), rollout and flow (through layer l) with the target, against the
    layer (1-indexed), with the mean's bootstrap 95% interval as a band (the numbers:
    ``summary``, the rollout.summary table: its ``common`` rows, the three on the same inputs);
    the authors' logged means (``authors_log_mean``), where the table has them, as hollow markers."""
    if "subset" in summary:
        summary = summary[summary.subset == "common"]
    targets = list(dict.fromkeys(summary.target))
    fig, axes = new_figure(3.0 * len(targets) + 0.4, 3.0, ncols=len(targets), sharey=True, squeeze=False)
    for ax, target in zip(axes[0], targets):
        g = summary[summary.target == target]
        for k, method in enumerate(m for m in ("raw", "rollout", "flow") if (g.method == m).any()):
            d = g[g.method == method].sort_values("layer")
            n = int((d.inputs - d.undefined).max())
            ax.plot(d.layer, d["mean"], marker="o", ms=3.5, color=f"C{k}", label=f"{METHOD_LABELS[method]} (n={n})")
            ax.fill_between(d.layer, d.mean_ci95_low, d.mean_ci95_high, color=f"C{k}", alpha=0.18, lw=0)
            ref = d[d.authors_log_mean.notna()] if "authors_log_mean" in d else d.iloc[:0]
            if len(ref):
                n_ref = int(ref.authors_log_inputs.max())
                label = f"{method}, the authors' logged run (n={n_ref})"
                ax.plot(ref.layer, ref.authors_log_mean, ls=":", marker="o", mfc="none", color=f"C{k}", label=label)
        ax.axhline(0, color="0.3", lw=0.6)
        layers = sorted(g.layer.unique())
        ax.set_xticks(layers[:: max(1, len(layers) // 12)])
        ax.set_xlabel("layer (raw: that layer; rollout, flow: through it)")
        ax.set_title(TARGET_TITLES[target], fontsize=8)
    axes[0, 0].legend(fontsize=6, loc="best")
    axes[0, 0].set_ylabel("mean Spearman over inputs\n(band: bootstrap 95% interval)")
    fig.suptitle(title, fontsize=8)
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
