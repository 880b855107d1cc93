"""Figures of the pattern-type rules (Kovaleva et al. 2019, Fig. 1-2): shares of each type
per task (Fig. 2, ``plot_patterns``), example maps of each type (Fig. 1,
``plot_pattern_examples``, ``plot_pattern_labelled_examples``), the classifier's
cross-validated confusion matrix (``plot_pattern_classifier``) and contact sheets of every
labelled map (``plot_pattern_label_sheets``). Each returns its figure(s); the caller saves
and closes them. Figures of a model other than the labelled one say so in their title
(``provenance_title``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.core.models import SPECIAL_KINDS
from analysis.kovaleva.patterns.features import CLASSES
from analysis.kovaleva.patterns.shares import share_table
from analysis.shared.plots import new_figure

COLORS = {
    "Vertical": "#4C72B0",
    "Diagonal": "#DD8452",
    "Vertical+Diagonal": "#8172B3",
    "Block": "#55A868",
    "Heterogeneous": "#C7C7C7",
}
SHORT = {
    "Vertical": "Vert.",
    "Diagonal": "Diag.",
    "Vertical+Diagonal": "Vert.+Diag.",
    "Block": "Block",
    "Heterogeneous": "Heterog.",
}


EXTRAPOLATED_COLOR = "#B22222"


def provenance_title(fig, text: str, tab: pd.DataFrame, model: str, y: float) -> None:
    """``text`` as the figure's title; when ``tab`` (columns of ``pattern_labels.with_provenance``)
    is of a model other than the labelled one, a second line says the types are extrapolated
    and the title turns red."""
    labels_from, extrapolated = tab["labels_from"].iloc[0], bool(tab["extrapolated"].iloc[0])
    if extrapolated:
        text += f"\nEXTRAPOLATED: classifier trained on hand labels of {labels_from} maps, applied to {model}"
    else:
        text += f"\nclassifier trained on hand labels of this model's ({labels_from}) maps"
    fig.suptitle(text, y=y, color=EXTRAPOLATED_COLOR if extrapolated else "black")


def draw_map(ax, m: np.ndarray, kinds: str, seq_ids=None, title: str | None = None, fontsize: int = 9) -> None:
    """One map, linear colour scale 0..max, special-token positions (segment boundaries)
    marked by small ticks outside the map."""
    ax.imshow(m, cmap="viridis", vmin=0, vmax=max(float(m.max()), 1e-6), interpolation="nearest")
    marks = [p for p, kch in enumerate(kinds) if kch in SPECIAL_KINDS]
    ax.set_xticks(marks)
    ax.set_yticks(marks)
    ax.set_xticklabels([])
    ax.set_yticklabels([])
    ax.tick_params(length=3, width=0.8, color="0.3", bottom=True, left=True)
    ax.grid(False)
    if title:
        ax.set_title(title, fontsize=fontsize)


def stacked_bars(ax, props: pd.DataFrame, group: str = "group") -> None:
    """Kovaleva Fig. 2: one bar per ``group``, stacked shares (%) of each class."""
    bottom = np.zeros(len(props))
    x = np.arange(len(props))
    for c in CLASSES:
        v = 100 * props[c].to_numpy()
        ax.bar(x, v, bottom=bottom, color=COLORS[c], label=c, width=0.7, edgecolor="white", linewidth=0.5)
        for xi, b, vi in zip(x, bottom, v):
            if vi >= 6:
                ax.text(xi, b + vi / 2, f"{vi:.0f}", ha="center", va="center", fontsize=7)
        bottom += v
    ax.set_xticks(x)
    ax.set_xticklabels(props[group], rotation=0)
    ax.set_ylim(0, 100)
    ax.set_ylabel("share of head maps (%)")


def plot_patterns(
    tab: pd.DataFrame, pred: pd.DataFrame, tasks: list[str], variants: list[str], model: str, clf: dict, shares: str
):
    """Kovaleva Fig. 2: a stacked bar per task (and variant: pre-trained, fine-tuned) of ``tab``'s
    share (``shares``: adjusted or classified); right: per layer, pooled over tasks (pre-trained,
    classified). ``tab`` (with ``labels_from``, ``extrapolated``) and ``pred`` from rule patterns."""
    finetuned = "finetuned" in variants
    wide = tab.pivot_table(index=["variant", "task"], columns="label", values="share", sort=False).reset_index()
    names = {"pretrained": "pre-tr.", "finetuned": "fine-t."}
    wide["group"] = [f"{t}\n{names[v]}" if finetuned else t for v, t in zip(wide["variant"], wide["task"])]
    order = [(v, t) for t in tasks for v in variants]
    wide = wide.set_index(["variant", "task"]).loc[order].reset_index()
    lay = share_table(pred[pred["variant"] == "pretrained"], ["layer"])
    lay = lay.pivot_table(index="layer", columns="label", values="share").reset_index()
    lay["group"] = lay["layer"].astype(str)
    fig, axes = new_figure(7.0, 2.8, ncols=2, gridspec_kw={"width_ratios": [max(len(wide), 3), max(len(lay), 3)]})
    stacked_bars(axes[0], wide)
    axes[0].set_title(f"per task, {shares}" + (" (pre-trained / fine-tuned)" if finetuned else " (pre-trained)"))
    stacked_bars(axes[1], lay)
    axes[1].set_xlabel("layer")
    axes[1].set_ylabel("")
    axes[1].set_title("pre-trained, per layer (all tasks), classified")
    for ax in axes:
        ax.grid(axis="x", visible=False)
    handles = [plt_patch for plt_patch in axes[0].containers]
    fig.legend(
        [h[0] for h in handles][::-1], CLASSES[::-1], loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False
    )
    n_in = int(tab["inputs_classified"].max())
    title = f"{model}: attention pattern types ({clf['kind']} classifier, {clf['n_labels']} hand labels), "
    provenance_title(fig, title + f"{n_in} dev inputs per task", tab, model, y=1.06)
    return fig


def plot_pattern_examples(pick: pd.DataFrame, maps: list[tuple], model: str):
    """Kovaleva Fig. 1: the most confidently classified map of each type (``pick``, rows of
    rule patterns' predictions with ``labels_from``, ``extrapolated``; ``maps``: (map, kinds,
    seq_ids) of each row)."""
    fig, axes = new_figure(1.6 * len(CLASSES), 2.0, ncols=len(CLASSES), squeeze=False)
    axes = axes[0]
    for ax in axes[len(pick) :]:
        ax.axis("off")
    for ax, (_, row), (m, kinds, seq_ids) in zip(axes, pick.iterrows(), maps):
        draw_map(
            ax,
            m,
            kinds,
            seq_ids,
            fontsize=8,
            title=f"{row['label']}\n{row['task']} L{row['layer']}-H{row['head']}, p={row['p_' + row['label']]:.2f}",
        )
        ax.set_xlabel("attended token", fontsize=7)
    axes[0].set_ylabel("attending token\n(ticks: special tokens)", fontsize=7)
    provenance_title(fig, f"{model} (pre-trained): most confident map of each predicted type", pick, model, y=1.16)
    return fig


def plot_pattern_labelled_examples(pick: pd.DataFrame, maps: dict, per_class: int, labelled_model: str):
    """Kovaleva Fig. 1 from the hand labels: a row per class of its first ``per_class``
    labelled maps (``pick`` from ``pattern_labels.first_per_class``, ``maps`` by map number)."""
    present = [c for c in CLASSES if c in set(pick["label"])]
    fig, axes = new_figure(1.45 * per_class, 1.6 * len(present), ncols=per_class, nrows=len(present), squeeze=False)
    for r, c in enumerate(present):
        rows = pick[pick["label"] == c]
        for k, ax in enumerate(axes[r]):
            if k >= len(rows):
                ax.axis("off")
                continue
            row = rows.iloc[k]
            m, kinds, seq = maps[int(row["map"])]
            draw_map(
                ax, m, kinds, seq, title=f"#{row['map']} {row['input_id']}\nL{row['layer']}-H{row['head']}", fontsize=7
            )
            if k == 0:
                ax.set_ylabel(c, fontsize=8)
    fig.suptitle(f"Hand-labelled maps of {labelled_model.split(':')[-1]}, first {per_class} of each class", y=1.0)
    fig.tight_layout()
    return fig


def plot_pattern_classifier(cm: pd.DataFrame, cv: pd.DataFrame, classifier: str, folds: int, labelled_model: str):
    """The cross-validated confusion matrix of ``classifier`` (counts, coloured by the share
    of the hand label), its F1 per class and the tiny CNN's weighted F1 when in ``cv``."""
    labels = [c for c in CLASSES if c in cm.index]
    share = cm.loc[labels, labels].to_numpy() / cm.loc[labels].to_numpy().sum(1, keepdims=True)
    f1 = cv[cv["classifier"] == classifier].set_index("label")["f1"]
    n_labels = int(cv["n_labels"].iloc[0])
    fig, ax = new_figure(3.6, 3.2)
    ax.imshow(share, cmap="Blues", vmin=0, vmax=1)
    for i in range(len(labels)):
        for j in range(len(labels)):
            ax.text(
                j,
                i,
                int(cm.loc[labels[i], labels[j]]),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if share[i, j] > 0.6 else "black",
            )
    ax.set_xticks(np.arange(len(labels)))
    ax.set_xticklabels([SHORT[c] for c in labels], rotation=30, ha="right")
    ax.set_yticks(np.arange(len(labels)))
    ax.set_yticklabels([f"{SHORT[c]} (F1 {f1[c]:.2f})" for c in labels])
    ax.set_xlabel("predicted (out of fold)")
    ax.set_ylabel("hand label")
    ax.grid(False)
    cnn = cv[(cv["classifier"] == "cnn") & (cv["label"] == "weighted avg")]["f1"]
    ax.set_title(
        f"{classifier} on map features, {folds}-fold CV\n{n_labels} hand-labelled maps of "
        f"{labelled_model.split(':')[-1]}; weighted F1 {f1['weighted avg']:.2f}"
        + (f" (tiny CNN: {cnn.iloc[0]:.2f})" if len(cnn) else "")
    )
    return fig


def plot_pattern_label_sheets(labels: pd.DataFrame, maps: dict, per: int = 16):
    """Contact sheets of the labelled maps in the order of ``labels``, ``per`` (16) to a 4 x 4
    sheet, each with its map number, length and hand label: yields one figure per sheet.
    Matplotlib's default style (the sheets are for auditing, not the report)."""

    for s in range(0, len(labels), per):
        part = labels.iloc[s : s + per]
        fig, axes = new_figure(10, 10.8, ncols=4, nrows=4, style="plain")
        for ax, row in zip(axes.flat, part.itertuples()):
            m, kinds, seq = maps[int(row.map)]
            draw_map(ax, m, kinds, seq, title=f"#{row.map} n={row.n_tokens}: {row.label}", fontsize=10)
        for ax in axes.flat[len(part) :]:
            ax.axis("off")
        fig.tight_layout()
        yield fig
