"""Figures of the fine-tuning rules (Kovaleva et al. 2019): dev scores after fine-tuning,
change of the maps (Fig. 4), attention to special tokens (Fig. 5), disabled heads (Fig. 6).
Each ``plot_<rule>`` takes the rule's table and returns the figure (the caller saves and closes it)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.shared.plots import ColourScale, head_heatmap, new_figure


def plot_finetune_scores(table: pd.DataFrame, model: str):
    """Bars per (task, metric): majority class, pre-trained with an untrained head, fine-tuned."""
    fig, ax = new_figure(max(3.5, 0.9 * len(table) + 1), 2.6)
    x = np.arange(len(table))
    for i, (col, name) in enumerate(
        [
            ("majority", "majority class"),
            ("pretrained_random_head", "pre-trained, untrained head"),
            ("finetuned", "fine-tuned"),
        ]
    ):
        bars = ax.bar(x + (i - 1) * 0.27, table[col], width=0.27, label=name, color=f"C{[7, 1, 0][i]}")
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
    if "finetuned_ci95_low" in table:  # the fine-tuned score's 95% bootstrap interval over dev rows
        err = [table.finetuned - table.finetuned_ci95_low, table.finetuned_ci95_high - table.finetuned]
        ax.errorbar(x + 0.27, table.finetuned, yerr=err, fmt="none", ecolor="k", elinewidth=0.8, capsize=2)
    learnt = table["learnt"] if "learnt" in table else pd.Series(True, index=table.index)
    ax.set_xticks(
        x, [f"{a}\n{b}" + ("" if ok else "\n(not learnt)") for a, b, ok in zip(table.task, table.metric, learnt)]
    )
    ax.axhline(0, color="k", lw=0.5)
    ax.set_ylabel("dev score")
    ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3, frameon=False)
    ax.set_title(f"{model}: GLUE dev after fine-tuning", pad=22)
    return fig


def plot_finetune_change(table: pd.DataFrame, tasks: list[str], model: str):
    """Kovaleva Fig. 4: per task, a layer x head grid of the mean cosine similarity of the
    pre-trained and fine-tuned maps (one colour scale for every task)."""
    n_layers = table.layer.max()
    ncols = min(2, len(tasks))
    nrows = -(-len(tasks) // ncols)
    fig, axes = new_figure(3.6 * ncols, (0.28 * n_layers + 1.0) * nrows, ncols=ncols, nrows=nrows, squeeze=False)
    vmin = float(table.cosine.min())
    for ax, task in zip(axes.flat, tasks):
        t = table[table.task == task]
        head_heatmap(ax, t, "cosine", ColourScale(vmin=vmin, vmax=1.0, cmap="viridis", label="cosine similarity"))
        ax.set_title(f"{task} ({int(t.n_examples.iloc[0])} dev inputs)")
    for ax in list(axes.flat)[len(tasks) :]:
        ax.axis("off")
    fig.suptitle(f"{model}: pre-trained vs fine-tuned maps, per head (lower = more change)", y=1.02)
    fig.tight_layout()
    return fig


def plot_finetune_special_tokens(table: pd.DataFrame, tasks: list[str], model: str, cls_token: str, sep_token: str):
    """Kovaleva Fig. 5: per task, mean attention to [CLS], [SEP] and '.'/',' per layer,
    fine-tuned (solid) and pre-trained (dotted)."""
    kinds = [("cls", cls_token), ("sep", sep_token), ("punct", "'.' or ','")]
    fig, axes = new_figure(2.0 * len(tasks) + 0.6, 2.3, ncols=len(tasks), sharey=True, squeeze=False)
    for ax, task in zip(axes[0], tasks):
        for i, (col, name) in enumerate(kinds):
            for variant, style in [("finetuned", "-"), ("pretrained", ":")]:
                t = table[(table.task == task) & (table.variant == variant)]
                ax.plot(
                    t.layer,
                    t[col],
                    style,
                    color=f"C{i}",
                    marker="o" if variant == "finetuned" else None,
                    ms=3,
                    label=f"{name}, {'fine-tuned' if variant == 'finetuned' else 'pre-trained'}",
                )
        ax.set_title(task)
        ax.set_xlabel("layer")
        ax.set_xticks(sorted(table.layer.unique()))
        ax.set_ylim(-0.02, 1.02)
    axes[0, 0].set_ylabel("mean attention to token")
    axes[0, -1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.suptitle(f"{model}: attention to special tokens after fine-tuning (dotted: pre-trained)", y=1.03)
    return fig


def disable_heads_grid(t: pd.DataFrame, n_layers: int, n_heads: int) -> tuple[pd.DataFrame, np.ndarray]:
    """One task's main-metric rows as a layer x (heads + 'all') grid of the change in points,
    and the cell labels (the change, '*' when McNemar's p < 0.05)."""
    grid = np.full((n_layers, n_heads + 1), np.nan)
    heads = t[t.scope == "head"]
    grid[heads.layer - 1, heads["head"].astype(int) - 1] = heads.change * 100
    layers = t[t.scope == "layer"]
    grid[layers.layer - 1, n_heads] = layers.change * 100
    pval = np.full(grid.shape, np.nan)
    if "mcnemar_p" in t:
        pval[heads.layer - 1, heads["head"].astype(int) - 1] = heads.mcnemar_p
        pval[layers.layer - 1, n_heads] = layers.mcnemar_p
    annot = np.vectorize(lambda v, q: "" if np.isnan(v) else f"{v:.1f}" + ("*" if q < 0.05 else ""))(grid, pval)
    df = pd.DataFrame(grid, index=range(1, n_layers + 1), columns=[*map(str, range(1, n_heads + 1)), "all"])
    return df, annot


def plot_disable_heads(main: pd.DataFrame, tasks: list[str], model: str):
    """Kovaleva Fig. 6: per task, the change of the main dev metric when one head (or a whole
    layer, column 'all') attends uniformly; colour scale per task."""
    import seaborn as sns

    n_layers, n_heads = int(main.layer.max()), int(main["head"].max())
    ncols = min(2, len(tasks))
    nrows = -(-len(tasks) // ncols)
    fig, axes = new_figure(4.6 * ncols, (0.3 * n_layers + 1.1) * nrows, ncols=ncols, nrows=nrows, squeeze=False)
    for ax, task in zip(axes.flat, tasks):
        t = main[main.task == task]
        lim = max(1.0, float(np.nanmax(np.abs(t.change))) * 100)  # colour scale per task
        df, annot = disable_heads_grid(t, n_layers, n_heads)
        sns.heatmap(
            df,
            ax=ax,
            cmap="RdBu",
            vmin=-lim,
            vmax=lim,
            center=0,
            annot=annot if n_heads <= 16 else False,
            fmt="",
            annot_kws={"fontsize": 6},
            cbar_kws={"label": "change (points)", "shrink": 0.8},
            linewidths=0.2,
            linecolor="white",
        )
        ax.axvline(n_heads, color="k", lw=1)
        ax.set_xlabel("disabled head ('all' = whole layer)")
        ax.set_ylabel("layer")
        ax.tick_params(axis="y", rotation=0)
        m, base, n = t.metric.iloc[0], t.unmodified.iloc[0], int(t.n_examples.iloc[0])
        ax.set_title(f"{task}: {m} {base * 100:.1f} unmodified ({n} dev)")
    for ax in list(axes.flat)[len(tasks) :]:
        ax.axis("off")
    fig.suptitle(f"{model}: dev score change when one head (or layer) attends uniformly", y=1.02)
    fig.tight_layout()
    return fig
