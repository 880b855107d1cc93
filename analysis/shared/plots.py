"""Figure helpers shared by the rules: paper-size, 1-indexed layers and heads."""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

PAPER_RC = {
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "figure.dpi": 100,
    "svg.hashsalt": "attention-analysis",
}


# Larger text on matplotlib's default look: the attention-as-explanation figures.
LARGE_RC = {
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
}
STYLES = ("paper", "plain", "plain-large")


def use_style(style: str = "paper") -> None:
    """The one figure style mechanism: ``paper`` (seaborn whitegrid, paper-size text; most
    figures), ``plain`` (matplotlib's defaults; figures dense with their own colours and
    markers) or ``plain-large`` (matplotlib's defaults with 8-9 pt text)."""
    if style == "paper":
        sns.set_theme(style="whitegrid", rc=PAPER_RC)
    elif style in ("plain", "plain-large"):
        matplotlib.rcdefaults()  # leaves the backend alone
        if style == "plain-large":
            matplotlib.rcParams.update(LARGE_RC)
    else:
        raise ValueError(f"unknown figure style {style!r}; known: {STYLES}")


def mark_local_layers(ax, axis: str, positions, layers, local) -> None:
    """Label the layer ticks at ``positions`` ("x" or "y" axis) with ``layers``, the local
    (sliding-window) ones of ``local`` marked "local"; nothing changes where there is none."""
    if not local:
        return
    local = set(local)
    labels = [
        f"{layer}\nlocal" if axis == "x" and layer in local else f"{layer} local" if layer in local else str(layer)
        for layer in layers
    ]
    if axis == "x":
        ax.set_xticks(list(positions), labels, fontsize=6)
        ax.set_xlabel("layer (local: sliding-window attention)")
    else:
        ax.set_yticks(list(positions), labels, fontsize=6)
        ax.set_ylabel("layer (local: sliding window)")


def layer_scatter(ax, table: pd.DataFrame, col: str, color="C0", label=None, seed: int = 0, marker="o", local=()):
    """Clark Fig. 2 style: a point per head at its layer (seeded jitter), the layer mean as a line;
    ``local``: the 1-indexed local (sliding-window) layers, marked on the axis."""
    rng = np.random.default_rng(seed)
    x = table["layer"].to_numpy() + rng.uniform(-0.18, 0.18, len(table))
    ax.scatter(x, table[col], s=9, alpha=0.55, color=color, marker=marker, linewidths=0)
    means = table.groupby("layer")[col].mean()
    ax.plot(means.index, means.to_numpy(), color=color, lw=1.6, label=label)
    layers = sorted(table["layer"].unique())
    ax.set_xticks(layers)
    ax.set_xlabel("layer")
    mark_local_layers(ax, "x", layers, layers, local)
    return means


@dataclass(frozen=True)
class ColourScale:
    """A heatmap's colours: ``cmap`` from ``vmin`` to ``vmax`` (None: the data's), with a colour
    bar (``bar``) labelled ``label`` (None: the column's name)."""

    vmin: float | None = None
    vmax: float | None = None
    cmap: str = "viridis"
    bar: bool = True
    label: str | None = None


def head_heatmap(
    ax, table: pd.DataFrame, col: str, scale: ColourScale = ColourScale(), annotate_above=None, fmt="{:.1f}", local=()
):
    """A layer x head grid (both 1-indexed) of one per-head column, coloured as ``scale`` says; cells
    at or above ``annotate_above`` carry their value (all cells stay in the CSV); ``local``: the
    1-indexed local (sliding-window) layers, marked on the layer axis."""
    grid = table.pivot(index="layer", columns="head", values=col).sort_index()
    annot = False
    if annotate_above is not None:
        annot = np.where(grid.to_numpy() >= annotate_above, np.vectorize(fmt.format)(grid.to_numpy()), "")
    sns.heatmap(
        grid,
        ax=ax,
        vmin=scale.vmin,
        vmax=scale.vmax,
        cmap=scale.cmap,
        annot=annot,
        fmt="",
        annot_kws={"fontsize": 6},
        cbar=scale.bar,
        cbar_kws={"label": scale.label or col, "shrink": 0.8},
        square=False,
        linewidths=0.2,
        linecolor="white",
    )
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    mark_local_layers(ax, "y", np.arange(len(grid.index)) + 0.5, list(grid.index), local)
    ax.tick_params(axis="y", rotation=0)
    # head numbers upright while a cell is wide enough for two digits, else turned
    cell_in = ax.get_position().width * ax.figure.get_figwidth() / grid.shape[1]
    two_digits = grid.shape[1] >= 10
    ax.tick_params(
        axis="x",
        rotation=90 if two_digits and cell_in < 0.2 else 0,
        labelsize=6 if two_digits else PAPER_RC["xtick.labelsize"],
    )
    return grid


def attention_map(ax, attn: np.ndarray, tokens_from, tokens_to, title: str = "", fontsize: float = 4.5, cbar=False):
    """One head's map, rows = attending token, columns = attended token."""
    sns.heatmap(
        attn,
        ax=ax,
        cmap="Blues",
        vmin=0,
        vmax=max(float(attn.max()), 1e-6),
        cbar=cbar,
        square=True,
        xticklabels=tokens_to,
        yticklabels=tokens_from,
    )
    ax.set_title(title)
    ax.tick_params(axis="x", labelsize=fontsize, rotation=90, length=0)
    ax.tick_params(axis="y", labelsize=fontsize, rotation=0, length=0)
    ax.set_xlabel("attended token")
    ax.set_ylabel("attending token")


def new_figure(width: float, height: float, ncols: int = 1, nrows: int = 1, style: str = "paper", **kw):
    """A new figure of ``width`` x ``height`` inches in ``style`` (see ``use_style``): every
    figure of the workflow is made here; the caller saves and closes it (``rule_io.save_figure``)."""
    use_style(style)
    return plt.subplots(nrows, ncols, figsize=(width, height), **kw)


def close(fig) -> None:
    plt.close(fig)
