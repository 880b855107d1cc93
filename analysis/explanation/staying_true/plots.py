"""Figures of Tutek & Snajder's tests: one ``plot_<figure>`` per figure of the rules
``staying_true_permutation``, ``staying_true_adversary`` and ``staying_true_single_token``
(the ``plain-large`` style of the other explanation figures; the caller saves them)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.explanation.staying_true.models import VARIANTS
from analysis.shared.plots import new_figure

MODEL_COLOURS = dict(zip(VARIANTS, ["#555555", "#1f77b4", "#2ca02c", "#d62728", "#9467bd"]))


def _models(df):
    return list(dict.fromkeys(df["model"]))


def _boxes(ax, df, col, models):
    data = [df.loc[df.model == m, col].dropna().to_numpy() for m in models]
    bp = ax.boxplot(data, widths=0.6, patch_artist=True, showfliers=False)
    for patch, m in zip(bp["boxes"], models):
        patch.set_facecolor(MODEL_COLOURS.get(m, "#cccccc"))
        patch.set_alpha(0.6)
    for k, d in enumerate(data, start=1):  # every instance, jittered
        x = k + np.random.default_rng(k).uniform(-0.2, 0.2, len(d))
        ax.scatter(x, d, s=3, color="k", alpha=0.25, lw=0)
    ax.set_xticks(range(1, len(models) + 1), models, rotation=30)


def plot_staying_true_permutation(df: pd.DataFrame, summary: pd.DataFrame, model: str):
    """Left: per model, the per-instance median output change (TVD) under 100 permutations
    of the attention; right: dev accuracy without and under permutation."""
    models = _models(df)
    fig, (ax1, ax2) = new_figure(7.6, 3.0, ncols=2, style="plain-large", layout="constrained")
    _boxes(ax1, df, "median_output_change", models)
    ax1.set_ylabel("median output change (TVD)\nover the permutations, per instance")
    ax1.set_xlabel("model")
    x = np.arange(len(models))
    s = summary.set_index("model").loc[models]
    ax2.bar(x - 0.2, s.accuracy, 0.4, color="#bbbbbb", label="original attention")
    ax2.bar(x + 0.2, s.accuracy_under_permutation, 0.4, color="#d62728", label="permuted attention")
    ax2.set_xticks(x, models, rotation=30)
    ax2.set_ylim(0, 1.15)
    ax2.set_ylabel("accuracy (tested dev sentences)")
    ax2.set_xlabel("model")
    ax2.legend(frameon=False, loc="upper center", ncol=2)
    fig.suptitle(f"Permuting the attention (Tutek & Šnajder 2020) — {model}")
    return fig


def plot_staying_true_adversary(df: pd.DataFrame, model: str, jsd_levels=()):
    """One curve per model: mean JSD of the adversary's attention from the model's vs the mean
    output change (TVD) it paid, one point per trade-off weight (the grid's labelled, the search's
    small); ``jsd_levels``: the summary's equal-JSD levels (dashed)."""
    fig, ax = new_figure(5.2, 3.8, style="plain-large", layout="constrained")
    for m in _models(df):
        d = df[df.model == m].sort_values("weight")
        ax.plot(d.mean_tvd, d.mean_jsd, "-", lw=1, color=MODEL_COLOURS.get(m), label=m)
        grid = d[d.source == "grid"] if "source" in d else d
        ax.plot(grid.mean_tvd, grid.mean_jsd, "o", ms=4, color=MODEL_COLOURS.get(m))
        ax.plot(d.mean_tvd, d.mean_jsd, ".", ms=3, color=MODEL_COLOURS.get(m))
        for _, r in grid.iterrows():
            ax.annotate(
                f"{r.weight:g}", (r.mean_tvd, r.mean_jsd), fontsize=6, xytext=(3, 2), textcoords="offset points"
            )
    ax.axhline(np.log(2), color="k", lw=0.5, ls=":")
    for k, level in enumerate(x for x in jsd_levels if np.isfinite(x)):
        ax.axhline(level, color="#888888", lw=0.8, ls="--", label="equal-JSD levels" if k == 0 else None)
    ax.set_xlabel("output change paid: mean TVD from the model's output")
    ax.set_ylabel("attention divergence reached:\nmean JSD from the model's attention (nats)")
    ax.legend(frameon=False, title="model", fontsize=7)
    ax.set_title(f"Model-based adversary (Wiegreffe & Pinter 2019), labels = grid λ — {model}", fontsize=8)
    return fig


def plot_staying_true_single_token(df: pd.DataFrame, model: str):
    """Per model: spread (std) of the single-token P(positive) within an instance, and
    Kendall tau between the attention and the single-token polarity |P(positive) - c| about
    the model's centre c (its median single-token P(positive), in the panel's tick labels)."""
    models = _models(df)
    fig, (ax1, ax2) = new_figure(7.6, 3.0, ncols=2, style="plain-large", layout="constrained")
    _boxes(ax1, df, "single_std", models)
    ax1.set_ylabel("std of lone-token P(positive)\nper instance")
    _boxes(ax2, df, "tau_polarity_centred", models)
    centres = df.groupby("model", sort=False).single_centre.first()
    ax2.set_xticks(range(1, len(models) + 1), [f"{m}\nc={centres[m]:.2f}" for m in models], rotation=30)
    ax2.axhline(0, color="k", lw=0.6)
    ax2.set_ylabel("Kendall τ: attention vs\nlone-token |P(positive) − c|")
    for ax in (ax1, ax2):
        ax.set_xlabel("model")
    fig.suptitle(f"Each token alone through the model — {model}")
    return fig
