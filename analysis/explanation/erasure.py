"""Erasure tests of Serrano & Smith 2019 (rule ``erasure``): single-weight erasure (zero the
top attention weight vs a random other one) and set erasure (remove items in ranking order
until the decision flips), as plain functions of an attention vector and a callable that
re-runs the decision, and their summaries.

Conventions: the *decision* is the predicted class of the unmodified model and a *flip* is a
change of the arg-max class; JS divergence in nats (:mod:`analysis.explanation.divergences`).
Rankings are descending (item 0 erased first); ties keep position order.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import torch

from analysis.explanation.divergences import js_divergence

log = logging.getLogger(__name__)

ORDERS = ("random", "attention", "gradient", "attention_x_gradient")


def single_erasure(a: torch.Tensor, decide_keep, p0: torch.Tensor, rng: np.random.Generator) -> dict:
    """Zero the highest attention weight vs a random other one (renormalise, re-run).

    ``decide_keep(keep (B, n)) -> probs (B, C)``. Needs n >= 2.
    """
    n = a.shape[-1]
    if n < 2:
        raise ValueError("single-weight erasure needs at least two items")
    top = int(torch.argmax(a))
    others = [i for i in range(n) if i != top]
    rand = int(others[rng.integers(len(others))])
    keep = torch.ones((2, n), dtype=a.dtype)
    keep[0, top] = 0
    keep[1, rand] = 0
    with torch.no_grad():
        P = decide_keep(keep).detach()
    p0 = p0.detach()
    pred = int(p0.argmax())
    jsd = js_divergence(P, p0[None].expand_as(P))
    return {
        "n_items": n,
        "top_index": top,
        "top_weight": float(a[top]),
        "random_index": rand,
        "random_weight": float(a[rand]),
        "weight_difference": float(a[top] - a[rand]),
        "jsd_top": float(jsd[0]),
        "jsd_random": float(jsd[1]),
        "jsd_difference": float(jsd[0] - jsd[1]),
        "flip_top": bool(P[0].argmax() != pred),
        "flip_random": bool(P[1].argmax() != pred),
    }


def rankings(a: torch.Tensor, grad: torch.Tensor, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Erasure orders (indices, first erased first): random, attention, gradient of the
    decision w.r.t. attention, attention x gradient."""
    a_, g_ = a.detach().double().numpy(), grad.detach().double().numpy()
    return {
        "random": rng.permutation(len(a_)),
        "attention": np.argsort(-a_, kind="stable"),
        "gradient": np.argsort(-g_, kind="stable"),
        "attention_x_gradient": np.argsort(-(a_ * g_), kind="stable"),
    }


def set_erasure(order, a: torch.Tensor, decide_keep, p0: torch.Tensor, erase_all: bool = False) -> dict:
    """Erase items in ``order`` until the decision flips: at most n - 1 items (one must stay), or
    with ``erase_all`` every item (Serrano & Smith's code: with nothing left the attention is all
    zero, and the classifier decides from an empty context).

    Returns items removed, fraction of items removed, attention mass removed (original
    weights), and ``flipped`` (False = never flips; the other fields are then NaN).
    """
    n = a.shape[-1]
    order = np.asarray(order)
    if n < 2:
        return {"n_items": n, "flipped": False, "n_removed": np.nan, "fraction_removed": np.nan, "mass_removed": np.nan}
    steps = n if erase_all else n - 1
    keep = torch.ones((steps, n), dtype=a.dtype)
    for k in range(steps):
        keep[k:, order[k]] = 0  # row k: the first k + 1 items of the order removed
    with torch.no_grad():
        P = decide_keep(keep).detach()
    flips = (P.argmax(-1) != int(p0.argmax())).numpy()
    if not flips.any():
        return {"n_items": n, "flipped": False, "n_removed": np.nan, "fraction_removed": np.nan, "mass_removed": np.nan}
    k = int(np.argmax(flips)) + 1
    return {
        "n_items": n,
        "flipped": True,
        "n_removed": k,
        "fraction_removed": k / n,
        "mass_removed": float(a.detach()[torch.as_tensor(order[:k])].sum()),
    }


def erasure_tables(
    instances, explainer, seed: int, random_orders: int = 1, erase_all: bool = False
) -> tuple[list[dict], list[dict], int]:
    """Single-weight and set erasure for every instance of one classifier
    (``explainer``: decide_keep(inst), attention_gradient(inst)). ``random_orders`` seeded random
    orders per instance (column ``draw``; Serrano & Smith: 5), ``erase_all``: see
    :func:`set_erasure`. Returns (single rows, set rows, instances skipped because they have < 2
    items)."""
    single, sets, skipped = [], [], 0
    for inst in instances:
        if inst.n < 2:
            skipped += 1
            continue
        rng = np.random.default_rng([seed, inst.id])
        decide = explainer.decide_keep(inst)
        base = {"id": inst.id, "label": inst.label, "prediction": inst.pred}
        single.append({**base, **single_erasure(inst.a, decide, inst.probs, rng)})
        grad = explainer.attention_gradient(inst)
        # the first random order is drawn as before, so one draw gives the rows of earlier runs
        orders = [(name, 0, order) for name, order in rankings(inst.a, grad, rng).items()]
        orders += [("random", d, rng.permutation(inst.n)) for d in range(1, random_orders)]
        for name, draw, order in orders:
            sets.append(
                {**base, "order": name, "draw": draw, **set_erasure(order, inst.a, decide, inst.probs, erase_all)}
            )
    return single, sets, skipped


def run_erasure(
    classifiers, seed: int, random_orders: int = 1, erase_all: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Rule ``erasure``: (single-weight rows, set rows, summary) over every
    ``(encoder, explainer, instances)`` of ``classifiers``
    (:func:`analysis.explanation.setup.classifiers_under_test`)."""
    single, sets = [], []
    for enc, ex, instances in classifiers:
        s, e, skipped = erasure_tables(instances, ex, seed, random_orders, erase_all)
        log.info("%s: %d instances, %d skipped (fewer than 2 items)", enc, len(s), skipped)
        single += [{"encoder": enc, **r} for r in s]
        sets += [{"encoder": enc, "skipped_lt2_items": skipped, **r} for r in e]
    single, sets = pd.DataFrame(single), pd.DataFrame(sets)
    return single, sets, erasure_summary(single, sets)


# ----------------------------------------------------------------------------- summaries


def erasure_summary(single: pd.DataFrame, sets: pd.DataFrame) -> pd.DataFrame:
    """One row per encoder: the single-weight summary beside the set summary (``_set`` suffix
    on clashing names)."""
    return single_summary(single).merge(set_summary(sets), on="encoder", suffixes=("", "_set"))


def set_summary(df):
    """Per encoder and order: instances, rows (instances x random draws), never-flip count and
    share of rows, median fraction / mass removed over the rows."""
    g = df.groupby(["encoder", "order"], sort=False)
    out = g.agg(
        instances=("id", "nunique"),
        rows=("flipped", "size"),
        flipped=("flipped", "sum"),
        median_fraction_removed=("fraction_removed", "median"),
        median_items_removed=("n_removed", "median"),
        median_mass_removed=("mass_removed", "median"),
    ).reset_index()
    out["never_flips"] = out["rows"] - out["flipped"]
    out["never_flips_share"] = out["never_flips"] / out["rows"]
    # never flips counted as removing everything (fraction 1): a median over every instance
    out["median_fraction_never_as_1"] = g["fraction_removed"].apply(lambda x: x.fillna(1.0).median()).to_numpy()
    return out.merge(paired_vs_attention(df), on=["encoder", "order"], how="left")


def vs_attention_rows(df):
    """The set rows beside their instance's attention-order row: whether each flips the decision
    with fewer items than the attention order (``sooner``; never flipping = infinitely many),
    more (``later``) or as many (``same``)."""
    key = ["encoder", "id"]
    items = df.assign(k=df["n_removed"].fillna(np.inf))
    att = items[items.order == "attention"][key + ["k"]].rename(columns={"k": "k_att"})
    m = items.merge(att, on=key)
    m["sooner"], m["later"], m["same"] = m.k < m.k_att, m.k > m.k_att, m.k == m.k_att
    return m


def paired_vs_attention(df):
    """Per encoder and order: share of instances where the order flips the decision with fewer
    items than the attention order (never flipping = infinitely many), more, or as many."""
    m = vs_attention_rows(df)
    return (
        m.groupby(["encoder", "order"], sort=False)[["sooner", "later", "same"]]
        .mean()
        .add_prefix("vs_attention_")
        .add_suffix("_share")
        .reset_index()
    )


def single_summary(df):
    g = df.groupby("encoder", sort=False)
    out = g.agg(
        instances=("id", "size"),
        flip_rate_top=("flip_top", "mean"),
        flip_rate_random=("flip_random", "mean"),
        median_jsd_top=("jsd_top", "median"),
        median_jsd_random=("jsd_random", "median"),
        share_jsd_top_larger=("jsd_difference", lambda x: float((x > 0).mean())),
    ).reset_index()
    both = df.assign(
        only_top=df.flip_top & ~df.flip_random,
        only_random=~df.flip_top & df.flip_random,
        both=df.flip_top & df.flip_random,
        neither=~df.flip_top & ~df.flip_random,
    )
    return out.merge(
        both.groupby("encoder", sort=False)[["only_top", "only_random", "both", "neither"]].sum().reset_index(),
        on="encoder",
    )
