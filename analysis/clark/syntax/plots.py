"""Figures of Clark et al. 2019 Table 1 and Fig. 5 (dependency heads): the best head per relation
(bars), every head per relation (heat-map grid) and the example head's map on one sentence."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from analysis.clark.syntax.scorer import DIRECTIONS
from analysis.shared.plots import attention_map, new_figure


def plot_dep_heads(main, model: str, corpus: str):
    """Clark Table 1 as bars, from :func:`analysis.clark.syntax.tables.table1`'s ``main``: per relation,
    the best head's accuracy in each direction vs the best offset baseline; the paper's numbers
    (bert-base, WSJ) as markers where it lists them, each on the bar it compares with."""
    rels = list(dict.fromkeys(main["relation"]))
    fig, ax = new_figure(6.5, 0.36 * len(rels) + 1.2)
    y = np.arange(len(rels))
    colors = {"dep->head": "#1f77b4", "head->dep": "#ff7f0e"}
    # the paper's numbers, each on the bar it compares with: its best head on its direction's bar
    # (rows y - 0.27: dep->head, y: head->dep), its baseline on the grey one (y + 0.27)
    pap = main.drop_duplicates("relation").set_index("relation").reindex(rels)
    paper_dir = pap["paper_direction"] if "paper_accuracy" in main else pd.Series(np.nan, index=rels)
    paper_acc = pap["paper_accuracy"] / 100 if "paper_accuracy" in main else paper_dir
    for k, direction in enumerate(DIRECTIONS):
        sub = main[main["direction"] == direction].set_index("relation").reindex(rels)
        ax.barh(
            y + (k - 1) * 0.27, sub["accuracy"], height=0.27, color=colors[direction], label=f"best head, {direction}"
        )
        # the head's label right of its bar, or inside its end where a paper marker would cover it
        marker = np.where(paper_dir == direction, paper_acc.fillna(-1), -1)
        for yy, xm, (acc, layer, head) in zip(y, marker, sub[["accuracy", "layer", "head"]].itertuples(index=False)):
            if np.isfinite(acc):
                inside = acc - 0.02 < xm < acc + 0.08 and acc > 0.1
                x, ha, color = (acc - 0.01, "right", "white") if inside else (acc + 0.01, "left", "black")
                ax.text(
                    x, yy + (k - 1) * 0.27, f"{int(layer)}-{int(head)}", va="center", ha=ha, color=color, fontsize=6.5
                )
    base = main.groupby("relation")["baseline_accuracy"].max().reindex(rels)
    ax.barh(y + 0.27, base, height=0.27, color="#9a9a9a", label="best fixed offset")
    if "paper_accuracy" in main:
        ok = paper_acc.notna().to_numpy()
        shift = _bar_offsets(paper_dir)
        for x, face, yy, label in (
            (paper_acc, "black", y + shift, "paper: best head (bert-base, WSJ)"),
            (pap["paper_baseline"] / 100, "white", y + 0.27, "paper: baseline"),
        ):
            ax.scatter(x[ok], yy[ok], marker="D", s=14, facecolors=face, edgecolors="black", zorder=3, label=label)
    _selected_markers(ax, main, rels, y)
    ns = main.drop_duplicates("relation").set_index("relation")["n"].reindex(rels)
    ax.set_yticks(y, [f"{r} (n={n})" for r, n in zip(rels, ns)], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.12)
    ax.set_xlabel("accuracy (fraction of arcs)", fontsize=9)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_title(f"{model} on {corpus}: best head per relation vs offset baseline", fontsize=9)
    fig.tight_layout()
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
    return fig


def _bar_offsets(directions) -> np.ndarray:
    """Each direction's bar offset within its relation's row (dep->head -0.27, head->dep 0; else 0)."""
    return np.array([(DIRECTIONS.index(d) - 1) * 0.27 if d in DIRECTIONS else 0.0 for d in directions])


def _selected_markers(ax, main, rels, y):
    """The head chosen on another corpus (``clark_syntax.select_on``) as scored here, on its
    direction's bar: the bars are in-sample best heads (the paper's Table 1), this marker is the
    held-out choice the scorecard reads."""
    if "selected_accuracy" not in main or main["selected_accuracy"].isna().all():
        return
    sel = main.drop_duplicates("relation").set_index("relation").reindex(rels)
    has = sel["selected_accuracy"].notna().to_numpy()
    shift = _bar_offsets(sel["selected_direction"])
    corpus = sel["selected_on"][has].iloc[0]
    label = f"head chosen on {corpus}, scored here"
    ax.scatter(sel["selected_accuracy"][has], (y + shift)[has], marker="x", s=22, color="black", zorder=4, label=label)


def plot_dep_heads_grid(cells, model: str, corpus: str, n_layers: int, n_heads: int, ncols: int = 4):
    """Layer x head accuracy heat-maps from :func:`analysis.clark.syntax.tables.grid_table`, one panel
    per relation (in its better direction); the best head boxed. Layers and heads 1-indexed."""
    rels = list(dict.fromkeys(cells["relation"]))
    if not rels:
        raise ValueError(f"{corpus}: no relation to draw in the heat-map grid")
    L, H = n_layers, n_heads
    ncols = min(ncols, len(rels))
    nrows = int(np.ceil(len(rels) / ncols))
    w = 1.9 + 0.12 * H
    fig, axes = new_figure(w * ncols, (0.9 + 0.13 * L + 0.4) * nrows, ncols=ncols, nrows=nrows, squeeze=False)
    im = None
    for ax, rel in zip(axes.ravel(), rels):
        sub = cells[cells["relation"] == rel]
        row = sub[sub["best"]].iloc[0]
        grid = np.full((L, H), np.nan)
        grid[sub["layer"].to_numpy() - 1, sub["head"].to_numpy() - 1] = sub["accuracy"].to_numpy()
        im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
        ax.grid(False)
        ax.add_patch(
            Rectangle((row["head"] - 1.5, row["layer"] - 1.5), 1, 1, fill=False, ec="red", lw=1.5, clip_on=False)
        )
        ax.set_title(
            f"{rel} ({row['direction']}), n={row['n']}\nbest {row['layer']}-{row['head']}: "
            f"{row['accuracy']:.2f}, offset {row['best_offset']:+d}: {row['baseline_accuracy']:.2f}",
            fontsize=8,
        )
        ax.set_xticks(range(H), range(1, H + 1), fontsize=6.5 if H > 8 else 8)
        ax.set_yticks(range(L), range(1, L + 1), fontsize=8)
        ax.set_xlabel("head", fontsize=8)
        ax.set_ylabel("layer", fontsize=8)
    for ax in axes.ravel()[len(rels) :]:
        ax.axis("off")
    fig.suptitle(f"{model} on {corpus}: accuracy of each head per dependency relation", fontsize=10)
    fig.tight_layout()
    if im is not None:
        cb = fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.6 if nrows > 1 else 0.95, pad=0.02)
        cb.set_label("accuracy", fontsize=8)
        cb.ax.tick_params(labelsize=8)
    return fig


def plot_dobj_head_example(wm, labels, arcs, best, model: str, sentence: str):
    """Clark Fig. 5 (syntax): the word-level map ``wm`` of head ``best`` (the Table 1 row of the
    drawn head: its relation, layer, head, direction and accuracy) on one sentence with every gold
    arc boxed (grey), the relation's arcs in red (``arcs`` from
    :func:`analysis.clark.syntax.examples.example_arcs`); a box at (row i, column j) means i's gold
    head is j (dep->head) or i's dependent is j."""
    relation, layer, head = best["relation"], int(best["layer"]), int(best["head"])
    title = (
        f"{model}: head {layer}-{head}\nbest {relation} head ({best['direction']}, accuracy {best['accuracy']:.2f})\n"
        f"sentence {sentence}; boxes: gold arcs, {relation} in red"
    )
    U = len(labels)
    fig, ax = new_figure(0.24 * U + 2.6, 0.22 * U + 1.6)
    attention_map(ax, wm, labels, labels, title=title, fontsize=8, cbar=True)
    for r, c, rel in arcs:
        hit = rel == relation
        ax.add_patch(Rectangle((c, r), 1, 1, fill=False, ec="red" if hit else "0.45", lw=1.8 if hit else 0.8))
    ax.set_xlabel("attended word", fontsize=8)
    ax.set_ylabel("attending word", fontsize=8)
    ax.title.set_fontsize(9)
    fig.tight_layout()
    return fig
