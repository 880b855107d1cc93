"""Figures of the attention-as-explanation tests: one ``plot_<figure>`` per figure of the rules
``erasure``, ``erasure_cls``, ``permutation``, ``adversarial`` and ``rank_agreement``.

These figures use the ``plain-large`` style of :func:`analysis.shared.plots.use_style`
(matplotlib's defaults with 8-9 pt text); the caller saves and closes each figure.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.explanation.erasure import ORDERS
from analysis.shared.plots import new_figure

ORDER_COLOURS = dict(zip(ORDERS, ["#999999", "#1f77b4", "#d62728", "#9467bd"]))


def _panels(n, width=2.6, height=2.8):
    width = max(width, 4.6 / n)
    fig, axes = new_figure(
        width * n + 0.4, height, ncols=n, style="plain-large", squeeze=False, sharey=True, layout="constrained"
    )
    return fig, axes[0]


# ----------------------------------------------------------------------------- erasure, erasure_cls


def _single_erasure(df: pd.DataFrame, model: str, title: str):
    """Per encoder: JSD(top erased) - JSD(random erased) vs a_top - a_random; the flip rates
    in the panel titles."""
    encs = list(dict.fromkeys(df["encoder"]))
    fig, axes = _panels(len(encs))
    for ax, enc in zip(axes, encs):
        d = df[df.encoder == enc]
        top_only = d.flip_top & ~d.flip_random
        rand_only = ~d.flip_top & d.flip_random
        rest = ~top_only & ~rand_only
        for sel, size, alpha, color, label in (
            (rest, 6, 0.5, "#1f77b4", "both or neither flip"),
            (top_only, 10, 0.9, "#d62728", "only top erasure flips"),
            (rand_only, 10, 0.9, "#2ca02c", "only random erasure flips"),
        ):
            ax.scatter(d.weight_difference[sel], d.jsd_difference[sel], s=size, alpha=alpha, color=color, label=label)
        ax.axhline(0, color="k", lw=0.6)
        ax.set_title(f"{enc}\nflips: top {d.flip_top.mean():.0%}, random {d.flip_random.mean():.0%}")
        ax.set_xlabel("a(top) − a(random)")
    axes[0].set_ylabel("ΔJSD of the output\n(top erased − random erased)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, frameon=False, markerscale=1.5)
    fig.suptitle(f"{title} — {model}")
    return fig


def _set_erasure(df: pd.DataFrame, model: str, title: str):
    """Box plots of the fraction removed per encoder and order (instances that flip); the
    share that never flips under each box."""
    encs = list(dict.fromkeys(df["encoder"]))
    orders = [o for o in ORDERS if o in set(df["order"])]
    fig, ax = new_figure(max(4.0, 1.6 * len(encs) + 1), 3.2, style="plain-large")
    width = 0.8 / len(orders)
    for i, enc in enumerate(encs):
        for j, o in enumerate(orders):
            d = df[(df.encoder == enc) & (df.order == o)]
            vals = d.fraction_removed.dropna().to_numpy()
            x = i + (j - (len(orders) - 1) / 2) * width
            if len(vals):
                bp = ax.boxplot(
                    vals,
                    positions=[x],
                    widths=width * 0.85,
                    patch_artist=True,
                    showfliers=False,
                    medianprops={"color": "k"},
                )
                bp["boxes"][0].set_facecolor(ORDER_COLOURS[o])
            never = 1 - d.flipped.mean() if len(d) else np.nan
            ax.text(x, 1.03, f"{never:.0%}", ha="center", va="bottom", fontsize=7, rotation=90)
    ax.axhline(1.0, color="k", lw=0.6)
    ax.set_xlim(-0.6, len(encs) - 0.4)
    ax.set_xticks(range(len(encs)), encs)
    ax.set_ylabel("fraction of items removed")
    ax.set_ylim(0, 1.25)
    ax.set_yticks(np.linspace(0, 1, 6))
    handles = [plt.Rectangle((0, 0), 1, 1, color=ORDER_COLOURS[o]) for o in orders]
    ax.legend(
        handles,
        [o.replace("_", " × ").replace("attention × x × gradient", "attention × gradient") for o in orders],
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
        frameon=False,
        title="order",
    )
    ax.set_title(f"{title}\n{model} (percent above the line: share of instances that never flip)")
    return fig


def plot_erasure_single(single: pd.DataFrame, model: str):
    """Rule ``erasure``: single-weight erasure of every attention classifier (Serrano & Smith 2019)."""
    return _single_erasure(single, model, "Single-weight erasure")


def plot_erasure_set(sets: pd.DataFrame, model: str):
    """Rule ``erasure``: set erasure of every attention classifier (Serrano & Smith 2019)."""
    return _set_erasure(sets, model, "Set erasure: fraction of items removed until the decision flips")


def plot_erasure_cls_single(single: pd.DataFrame, model: str):
    """Rule ``erasure_cls``: single-weight erasure in the transformer's own [CLS] row."""
    return _single_erasure(single, model, "Single-weight erasure in the transformer's own attention (heads averaged)")


def plot_erasure_cls_set(sets: pd.DataFrame, model: str, layer: int):
    """Rule ``erasure_cls``: set erasure in the transformer's own [CLS] row of ``layer`` (1-indexed)."""
    name = f"[CLS] row, layer {layer}"
    return _set_erasure(sets, model, f"Set erasure in the transformer's own attention ({name}, heads averaged)")


# ----------------------------------------------------------------------------- Jain & Wallace


def plot_permutation(df: pd.DataFrame, model: str):
    """Rule ``permutation``: median output change over permutations vs max attention."""
    encs = list(dict.fromkeys(df["encoder"]))
    fig, axes = _panels(len(encs))
    for ax, enc in zip(axes, encs):
        d = df[df.encoder == enc]
        for pred, colour in ((0, "#d62728"), (1, "#2ca02c")):
            e = d[d.prediction == pred]
            ax.scatter(
                e.max_attention,
                e.median_output_change,
                s=6,
                alpha=0.6,
                color=colour,
                label=f"predicted {'negative' if pred == 0 else 'positive'}",
            )
        ax.set_title(f"{enc}\nmedian of medians {d.median_output_change.median():.3f}")
        ax.set_xlabel("max attention weight")
        ax.set_xlim(0, 1)
    axes[0].set_ylabel("median output change (TVD)\nover permutations")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=2, frameon=False, markerscale=1.5)
    fig.suptitle(f"Permuting the attention weights — {model}")
    return fig


def plot_adversarial(df: pd.DataFrame, model: str, search):
    """Rule ``adversarial``: JSD reached by the best adversary vs max attention, one colour per
    reported output-change bound (``search``: the ``AdversarySearch`` run); the strictest on top."""
    encs = list(dict.fromkeys(df["encoder"]))
    tols = sorted(dict.fromkeys(df["tolerance"]))
    colours = dict(zip(tols, ("#9467bd", "#ff7f0e", "#2ca02c", "#8c564b")))
    fig, axes = _panels(len(encs))
    for ax, enc in zip(axes, encs):
        d = df[df.encoder == enc]
        for tol in reversed(tols):
            t = d[d.tolerance == tol]
            ax.scatter(t.max_attention, t.jsd, s=6, alpha=0.6, color=colours[tol], label=f"output change ≤ {tol:g}")
        medians = " / ".join(f"{d[d.tolerance == tol].jsd.median():.2f}" for tol in tols)
        ax.axhline(np.log(2), color="k", lw=0.6, ls=":")
        ax.set_title(f"{enc}\nmedian JSD {medians}")
        ax.set_xlabel("max attention weight")
        ax.set_xlim(0, 1)
    axes[0].set_ylabel("JSD(adversary, attention) reached\n(dotted: ln 2, the maximum)")
    axes[0].legend(fontsize=6, loc="lower right")
    bounds = " / ".join(f"{t:g}" for t in tols)
    fig.suptitle(f"Adversarial attention, best of {search.restarts} per instance (output change ≤ {bounds}) — {model}")
    return fig


def plot_rank_agreement(df: pd.DataFrame, model: str):
    """Rule ``rank_agreement``: Kendall tau of attention with gradient and leave-one-out importance."""
    encs = list(dict.fromkeys(df["encoder"]))
    fig, ax = new_figure(max(4.0, 1.4 * len(encs) + 1), 3.0, style="plain-large")
    for j, (col, colour, name) in enumerate(
        (("tau_gradient", "#d62728", "gradient"), ("tau_leave_one_out", "#1f77b4", "leave-one-out"))
    ):
        for i, enc in enumerate(encs):
            vals = df.loc[df.encoder == enc, col].dropna().to_numpy()
            if len(vals):
                bp = ax.boxplot(
                    vals,
                    positions=[i + (j - 0.5) * 0.38],
                    widths=0.32,
                    patch_artist=True,
                    showfliers=False,
                    medianprops={"color": "k"},
                )
                bp["boxes"][0].set_facecolor(colour)
        ax.plot([], [], color=colour, lw=6, label=name)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlim(-0.6, len(encs) - 0.4)
    ax.set_xticks(range(len(encs)), encs)
    ax.set_ylabel("Kendall τ with attention")
    ax.set_ylim(-1, 1)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, title="importance")
    ax.set_title(f"Rank agreement of attention with other importance measures — {model}")
    return fig
