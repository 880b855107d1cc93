"""Figures of the heads that select a mention's antecedent: Clark et al. 2019 Table 2
(coreference, rule coref_heads) and the GAP pronoun -> name extra (rule gap_heads), drawn alike:
left every head's accuracy, right the best head vs the baselines per group."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle

from analysis.clark.coref.gap_heads import GROUPS
from analysis.clark.coref.heads import TYPES
from analysis.shared.plots import ColourScale, head_heatmap, new_figure


@dataclass(frozen=True)
class SelectionFigure:
    """What one antecedent-selection figure shows: its ``groups`` (column ``group_col`` of the
    tables), ``title``, the ``what`` that was scored, the right panel's ``ylabel``, and the accuracy
    (%) from which a head's cell carries its value (``label_above``)."""

    groups: tuple
    group_col: str
    title: str
    what: str
    ylabel: str
    label_above: float


COREF = SelectionFigure(
    groups=TYPES,
    group_col="mention_type",
    title="coreference (Clark Table 2)",
    what="mentions",
    ylabel="antecedent selection accuracy (%)",
    label_above=50,
)
GAP = SelectionFigure(
    groups=GROUPS,
    group_col="gender",
    title="GAP pronoun -> name",
    what="pronouns",
    ylabel="pronoun -> name accuracy (%)",
    label_above=65,
)


def plot_coref_heads(per_head: pd.DataFrame, summary: pd.DataFrame, model: str, population: str):
    """Clark Table 2: antecedent selection accuracy of every head (all mentions) and the best
    head vs the baselines per mention type (``coref_heads`` tables; the paper's numbers as ticks);
    ``population`` says what was scored (``coref_heads.population_label``)."""
    return _plot_selection(per_head, summary, model, population, COREF)


def plot_gap_heads(per_head: pd.DataFrame, summary: pd.DataFrame, model: str, n_examples: int):
    """GAP pronoun -> name accuracy of every head and the best head vs the distance baselines per
    pronoun gender (``gap_heads`` tables)."""
    return _plot_selection(per_head, summary, model, f"{n_examples} examples", GAP)


def _plot_selection(per_head: pd.DataFrame, summary: pd.DataFrame, model: str, population: str, view: SelectionFigure):
    """Left: accuracy of every head (group 'all'); right: best head vs baselines per group."""
    L = int(per_head["layer"].max())
    H = int(per_head["head"].max())
    width = max(7.2, 4.4 + 0.28 * H)
    fig, (ax0, ax1) = new_figure(
        width, max(2.8, 0.25 * L + 1.4), ncols=2, gridspec_kw={"width_ratios": [max(H, 4) * 0.28 + 0.8, 4.2]}
    )
    _per_head_panel(ax0, per_head, summary, view, L * H)
    _systems_panel(ax1, summary, view.groups, view.group_col, view.ylabel)
    fig.suptitle(f"{model}: {view.title}, {population}", y=1.02)
    fig.tight_layout()
    return fig


def _per_head_panel(ax, per_head, summary, view: SelectionFigure, n_cells: int) -> None:
    t = per_head[per_head[view.group_col] == "all"].copy()
    t["accuracy_pct"] = 100 * t["accuracy"]
    head_heatmap(
        ax,
        t,
        "accuracy_pct",
        ColourScale(vmin=0, vmax=100, label="accuracy (%)"),
        fmt="{:.0f}",
        annotate_above=view.label_above if n_cells <= 200 else None,
    )
    best = summary[summary["system"] == "best_head"].iloc[0]
    ax.add_patch(Rectangle((best["head"] - 1, best["layer"] - 1), 1, 1, fill=False, edgecolor="red", lw=1.5))
    ax.set_title(
        f"per-head accuracy, all {view.what}\n(n={int(t['n'].iloc[0])}; >= {view.label_above:g}% labelled; red: best)"
    )


def _systems_panel(ax, summary, groups, group_col: str, ylabel: str) -> None:
    systems = list(dict.fromkeys(summary["system"]))
    labels = dict(zip(summary["system"], summary["label"]))
    x = np.arange(len(groups))
    w = 0.8 / len(systems)
    for k, s in enumerate(systems):
        rows = summary[summary["system"] == s].set_index(group_col).reindex(groups)
        xs = x - 0.4 + w * (k + 0.5)
        ax.bar(xs, 100 * rows["accuracy"], width=w, color=f"C{k}", label=labels[s])
        if "paper_accuracy" in rows and rows["paper_accuracy"].notna().any():
            ax.scatter(
                xs,
                100 * rows["paper_accuracy"],
                marker="_",
                s=60,
                color="k",
                linewidths=1.5,
                label="paper (bert-base)" if k == 0 else None,
                zorder=3,
            )
    ns = summary[summary["system"] == systems[0]].set_index(group_col).reindex(groups)["n"]
    ax.set_xticks(x, [f"{t}\n(n={int(n)})" for t, n in zip(groups, ns)], fontsize=6.5)
    ax.set_ylim(0, 100)
    ax.set_ylabel(ylabel)
    ax.set_title("best head vs baselines")
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
