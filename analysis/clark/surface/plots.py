"""The figures of Clark et al. 2019 sec. 3 drawn from the per-head surface tables
(``analysis.clark.surface``): relative position, special tokens (Fig. 2, top), [SEP] from [SEP]
(Fig. 2, bottom), entropy (Fig. 4) and example heads (Fig. 1). Each ``plot_<rule>`` returns
the figure; the caller saves and closes it. ``local``: the model's local (sliding-window) layers,
1-indexed (ModernBERT), marked on the layer axis."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.shared.plots import ColourScale, attention_map, head_heatmap, layer_scatter, new_figure


def plot_relative_position(table: pd.DataFrame, model: str, n_segments: int, local=()):
    """Three layer x head grids: mean attention to the previous token, itself, the next token."""
    n_layers = table["layer"].nunique()
    fig, axes = new_figure(7.2, 0.45 * n_layers + 1.0, ncols=3, sharey=True)
    for ax, col, name in zip(axes, ["prev", "current", "next"], ["previous token", "current token", "next token"]):
        head_heatmap(ax, table, col, ColourScale(vmin=0, vmax=1, bar=False), annotate_above=0.3, local=local)
        ax.set_title(f"to {name}")
        if col != "prev":
            ax.set_ylabel("")
    # one colour bar beside all three panels, so that they keep the same width (12 head labels fit)
    fig.colorbar(axes[-1].collections[0], ax=list(axes), shrink=0.8, pad=0.02, label="mean attention")
    fig.suptitle(f"{model}: relative position, {n_segments} segments (values shown where >= 0.3)", y=1.02)
    return fig


def plot_special_tokens(table: pd.DataFrame, model: str, n_segments: int, cls_token: str, sep_token: str, local=()):
    """Clark Fig. 2 (top): attention to [CLS], [SEP] and '.' or ',' per layer, a point per head."""
    fig, axes = new_figure(7.0, 2.3, ncols=3, sharey=True)
    names = [cls_token, sep_token, "'.' or ','"]
    for i, (ax, col, name) in enumerate(zip(axes, ["cls", "sep", "punct"], names)):
        layer_scatter(ax, table, col, color=f"C{i}", seed=i, local=local)
        ax.set_title(f"attention to {name}")
        ax.set_ylim(-0.02, 1.02)
    axes[0].set_ylabel("mean attention (point = head,\nline = layer mean)")
    fig.suptitle(f"{model}: attention to special tokens, {n_segments} segments", y=1.03)
    return fig


def plot_sep_attention(table: pd.DataFrame, model: str, n_segments: int, sep_token: str, local=()):
    """Clark Fig. 2 (bottom): attention to [SEP] from [SEP] tokens and from other tokens."""
    fig, ax = new_figure(3.4, 2.5)
    layer_scatter(ax, table, "sep_from_sep", color="C1", label=f"from {sep_token} tokens", seed=0, local=local)
    layer_scatter(ax, table, "sep_from_other", color="C0", label="from other tokens", seed=1, marker="^", local=local)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel(f"mean attention to {sep_token}")
    ax.legend(loc="best", frameon=True)
    ax.set_title(f"{model}: attention to {sep_token}\n(point = head, line = layer mean; {n_segments} segments)")
    return fig


def plot_entropy(table: pd.DataFrame, model: str, n_segments: int, cls_token: str, local=()):
    """Clark Fig. 4: mean attention entropy per layer, from all tokens and from [CLS] only,
    with the entropy of uniform attention over the same rows."""
    fig, axes = new_figure(6.4, 2.4, ncols=2, sharey=True)
    for ax, col, base, title in [
        (axes[0], "entropy", "uniform_entropy", "from all tokens"),
        (axes[1], "entropy_cls", "uniform_entropy_cls", f"from {cls_token} only"),
    ]:
        layer_scatter(ax, table, col, color="C0", label="heads (layer mean)", local=local)
        ax.axhline(table[base].mean(), color="k", ls="--", lw=1, label="uniform attention")
        ax.set_title(f"attention entropy {title}")
    axes[0].set_ylabel("mean entropy (nats)")
    handles, labels = axes[0].get_legend_handles_labels()
    # below the layer labels, which take two lines where local layers are marked
    fig.legend(
        handles, labels, loc="upper center", ncol=2, bbox_to_anchor=(0.5, -0.12 if local else -0.05), frameon=False
    )
    fig.suptitle(f"{model}: attention entropy, {n_segments} segments", y=1.03)
    return fig


def plot_example_heads(
    picked: pd.DataFrame,
    attn: np.ndarray,
    tokens: list[str],
    window: int,
    model: str,
    segment: str,
    cls_token: str,
    sep_token: str,
):
    """Clark Fig. 1: the map of each picked head (``surface.pick_example_heads``) on the first
    ``window`` word pieces of one segment (maps ``attn`` (L, H, n, n), word pieces ``tokens``)."""
    names = {
        "prev": "previous token",
        "next": "next token",
        "cls": cls_token,
        "sep": sep_token,
        "punct": "'.' / ','",
        "broad": "broad (max entropy)",
    }
    fig, axes = new_figure(7.0, 6.4, ncols=3, nrows=2)
    for ax, r in zip(axes.ravel(), picked.itertuples()):
        attention_map(
            ax,
            attn[r.layer - 1, r.head - 1, :window, :window],
            tokens[:window],
            tokens[:window],
            title=f"{names[r.behaviour]}: head {r.layer}-{r.head}\n(corpus mean {r.value:.2f})",
        )
    for ax in axes.ravel():
        ax.set_xlabel("")
        ax.set_ylabel("")
    fig.suptitle(
        f"{model}: example heads on segment {segment} (word pieces 1-{window} of {len(tokens)}; head = layer-head)"
    )
    fig.tight_layout()
    return fig
