"""Several models side by side: tables stacked with a ``model`` column, and one figure per panel.
Depth is relative (layer / number of layers) so models of different depth share an axis."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.shared.plots import new_figure


def stack(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """{model: table} -> one table with a leading ``model`` column (and relative depth)."""
    out = []
    for model, t in tables.items():
        t = t.copy()
        if "layer" in t.columns and pd.api.types.is_numeric_dtype(t["layer"]):
            t["relative_depth"] = t["layer"] / t["layer"].max()
        out.append(t.assign(model=model))
    stacked = pd.concat(out, ignore_index=True)
    return stacked[["model", *[c for c in stacked.columns if c != "model"]]]


def best_per_relation(dep: pd.DataFrame) -> pd.DataFrame:
    """Per model and relation: the best head's accuracy (either direction) and the best offset's."""
    keep = dep[~dep["relation"].str.startswith("All (")]
    grouped = keep.groupby(["model", "relation"], sort=False)
    return grouped.agg(
        accuracy=("accuracy", "max"), baseline_accuracy=("baseline_accuracy", "max"), n=("n", "max")
    ).reset_index()


COREF_SYSTEMS = {
    "best_head": "best head",
    "best_head_2fold": "best head, 2-fold",
    "nearest": "nearest mention",
    "same_head": "same head word",
    "rule_based": "rule-based sieve",
}


def coref_systems(coref: pd.DataFrame) -> pd.DataFrame:
    """Stacked coref_heads tables -> all-mention accuracy per model and system, with one label
    per system across models (the best head's own label names its head, which differs)."""
    t = coref[coref["mention_type"] == "all"][["model", "system", "label", "accuracy", "n"]]
    return t.assign(head=t["label"], label=t["system"].map(COREF_SYSTEMS).fillna(t["system"]))


LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v")


def _by_depth(table: pd.DataFrame, columns: list[str], ylabels: list[str], title: str):
    fig, axes = new_figure(3.0 * len(columns), 2.6, ncols=len(columns), squeeze=False)
    for ax, col, ylabel in zip(axes[0], columns, ylabels):
        for i, (model, t) in enumerate(table.groupby("model", sort=False)):
            # a line style and marker per model too: models with the same values (e.g. two random
            # ones at uniform entropy) would otherwise hide each other
            style = dict(ls=LINE_STYLES[i % len(LINE_STYLES)], marker=MARKERS[i % len(MARKERS)])
            ax.plot(t["relative_depth"], t[col], ms=3.5, lw=1.4, color=f"C{i}", label=model, **style)
        ax.set_xlabel("relative depth (layer / layers)")
        ax.set_ylabel(ylabel)
        ax.set_xlim(0, 1.02)
    axes[0][0].legend(fontsize=6, loc="best")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig


def plot_compare_special_tokens(table: pd.DataFrame):
    """Mean attention to [CLS], [SEP] and ". ," per layer, one line per model (Clark Fig. 2)."""
    labels = ["attention to [CLS]-like", "attention to [SEP]-like", 'attention to "." or ","']
    return _by_depth(table, ["cls", "sep", "punct"], labels, "Attention to special tokens by relative depth")


def plot_compare_entropy(table: pd.DataFrame):
    """Mean entropy per layer (all tokens; from [CLS]) over the uniform entropy, per model (Fig. 4)."""
    t = table.assign(
        ratio=table["entropy"] / table["uniform_entropy"], ratio_cls=table["entropy_cls"] / table["uniform_entropy_cls"]
    )
    labels = ["entropy / uniform entropy", "entropy from [CLS] / uniform"]
    return _by_depth(t, ["ratio", "ratio_cls"], labels, "Attention entropy by relative depth (1 = uniform)")


def _grouped_bars(ax, table: pd.DataFrame, category: str, value: str, marker: str | None = None):
    cats = list(dict.fromkeys(table[category]))
    models = list(dict.fromkeys(table["model"]))
    width = 0.8 / len(models)
    for i, model in enumerate(models):
        t = table[table["model"] == model].set_index(category).reindex(cats)
        x = np.arange(len(cats)) + (i - (len(models) - 1) / 2) * width
        ax.bar(x, t[value], width, color=f"C{i}", label=model)
        if marker:
            ax.scatter(x, t[marker], marker="_", s=60, color="black", zorder=3, label="best offset" if i == 0 else None)
    ax.set_xticks(np.arange(len(cats)), cats, rotation=45, ha="right")
    ax.legend(fontsize=6)


def _bar_figure(table: pd.DataFrame, category: str, value: str, labels: tuple[str, str, str], size, marker=None):
    """One grouped bar per model and category; ``labels`` = (x label, y label, title)."""
    fig, ax = new_figure(*size)
    _grouped_bars(ax, table, category, value, marker=marker)
    xlabel, ylabel, title = labels
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return fig


def plot_compare_dep_heads(table: pd.DataFrame, corpus: str):
    """Best head's accuracy per relation, one bar per model; black tick = that model's best offset."""
    width = max(5.0, 0.35 * table["relation"].nunique() * table["model"].nunique() ** 0.5)
    labels = ("relation", "accuracy of the best head", f"Best head per relation ({corpus}; Clark Table 1)")
    return _bar_figure(table, "relation", "accuracy", labels, (width, 2.8), marker="baseline_accuracy")


def plot_compare_coref(table: pd.DataFrame):
    """Antecedent accuracy (all mentions) of the best head and the three baselines, per model."""
    labels = ("system", "antecedent accuracy (all mentions)", "Coreference: best head vs baselines (Clark Table 2)")
    return _bar_figure(table, "label", "accuracy", labels, (4.5, 2.8))


def plot_compare_probes(table: pd.DataFrame):
    """UAS of each probe and baseline, per model (Clark Table 3)."""
    labels = ("probe", "UAS (dev, no punctuation)", "Attention probes (Clark Table 3)")
    return _bar_figure(table, "probe", "uas", labels, (4.5, 2.8))


def scorecard_matrix(card: pd.DataFrame) -> pd.DataFrame:
    """Stacked scorecards -> claims x models table of verdicts (claims in file order)."""
    matrix = card.pivot(index="id", columns="model", values="verdict")
    matrix = matrix.reindex(index=list(dict.fromkeys(card["id"])), columns=list(dict.fromkeys(card["model"])))
    # what a verdict rests on, in every view: a claim on one training seed, or on its point value alone;
    # and which claims are extensions
    marks = {}
    for claim, rows in card.groupby("id", sort=False):
        seeds = pd.to_numeric(rows.get("seeds", pd.Series(dtype=float)), errors="coerce")
        basis = rows.get("basis", pd.Series("", index=rows.index)).fillna("")
        notes = (["1 seed"] if (seeds == 1).any() else []) + (["point only"] if (basis == "point only").any() else [])
        # this project's extension (a setting the paper did not test), apart from the paper's claims
        notes = (
            ["extension"] if rows.get("extension", pd.Series(False)).fillna(False).astype(bool).any() else []
        ) + notes
        marks[claim] = f"{claim} ({', '.join(notes)})" if notes else claim
    return matrix.rename(index=marks)
