"""The attention tests on Tutek & Snajder's models (rules ``staying_true_permutation``,
``staying_true_single_token``, ``staying_true_erasure``), reusing the explanation tests:
:func:`~analysis.explanation.permutation.permutation_rows`,
:func:`~analysis.explanation.erasure.erasure_tables` and
:func:`~analysis.explanation.rank_agreement.rank_agreement_rows` run on an
:class:`~analysis.explanation.explainer.Explainer` of each model.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from analysis.explanation.erasure import erasure_tables, set_summary, single_summary
from analysis.explanation.explainer import Explainer, instance_fields
from analysis.explanation.permutation import permutation_rows
from analysis.explanation.rank_agreement import kendall_tau, rank_agreement_rows
from analysis.explanation.sst2 import read_sst2
from analysis.explanation.staying_true.models import load_variants

log = logging.getLogger(__name__)


def models_under_test(bundle_path, glue_sums, task: str, n_explain: int):
    """[(model, explainer, instances of the first ``n_explain`` dev sentences)] in the
    bundle's order (the dev sentences of the ``explanation`` rules)."""
    bundle = torch.load(bundle_path, map_location="cpu", weights_only=False)  # saved on any device
    dev, _ = read_sst2(Path(glue_sums).parent, "dev", task=task)
    vocab, models = load_variants(bundle)
    out = []
    for name, clf in models.items():
        ex = Explainer(clf, vocab)
        out.append((name, ex, [ex.instance(i, w, y) for i, (w, y) in enumerate(dev[:n_explain])]))
    return out


# ----------------------------------------------------------------------------- permutation


def run_staying_true_permutation(models, n_perm: int, seed: int) -> pd.DataFrame:
    """Per model and instance: the permutation test's median / max output change (TVD),
    flip rate, and accuracy under permutation (share of the permutations whose decision is
    the gold label; binary task: 1 - flip rate when the model is right, flip rate when not)."""
    rows = []
    for name, ex, instances in models:
        for r in permutation_rows(instances, ex, n_perm, seed):
            right = r["prediction"] == r["label"]
            acc = 1.0 - r["flip_rate"] if right else r["flip_rate"]
            rows.append({"model": name, **r, "correct": right, "accuracy_under_permutation": acc})
    df = pd.DataFrame(rows)
    if df.prediction.max() > 1:
        raise ValueError("accuracy under permutation is derived for binary tasks only")
    return df


def permutation_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per model: median of the per-instance median TVD (and quartiles), accuracy without
    and under permutation and its drop (accuracy - accuracy under permutation), and the
    ratio of the median TVD to the base model's."""
    g = df.groupby("model", sort=False)
    out = g.agg(
        instances=("id", "size"),
        median_output_change=("median_output_change", "median"),
        q25_output_change=("median_output_change", lambda x: x.quantile(0.25)),
        q75_output_change=("median_output_change", lambda x: x.quantile(0.75)),
        mean_flip_rate=("flip_rate", "mean"),
        accuracy=("correct", "mean"),
        accuracy_under_permutation=("accuracy_under_permutation", "mean"),
    ).reset_index()
    out["accuracy_drop_under_permutation"] = out.accuracy - out.accuracy_under_permutation
    if "base" in set(out.model):
        base = float(out.loc[out.model == "base", "median_output_change"].iloc[0])
        out["median_output_change_vs_base"] = out.median_output_change / base if base > 0 else np.nan
    return out


# ----------------------------------------------------------------------------- single tokens


@torch.no_grad()
def single_token_probs(explainer: Explainer, inst) -> torch.Tensor:
    """Output distributions (n, C) of each token of ``inst`` fed alone (attention = 1)."""
    clf = explainer.clf
    ids = inst.inputs["ids"][:, None]
    mask = torch.ones(ids.shape, dtype=torch.bool)
    H = clf.encode(clf.embed(ids), mask)
    return torch.softmax(clf.output(H, clf.attention(H, mask)), -1)


def single_token_rows(instances, explainer: Explainer) -> list[dict]:
    """Per instance: spread of the single-token P(positive) (std, range), and Kendall tau of
    the attention with the single-token polarity |P(positive) - 1/2|, with the polarity
    about the model's own centre |P(positive) - c| (c = median single-token P(positive)
    over all tokens of ``instances``: a model whose lone words lean positive has its
    neutral point there), and with the single-token probability of the sentence's decision."""
    rows = []
    probs = [single_token_probs(explainer, inst).double() for inst in instances]
    centre = float(np.median(np.concatenate([p[:, 1].numpy() for p in probs]))) if probs else 0.5
    for inst, p in zip(instances, probs):
        pos = p[:, 1].numpy()
        a = inst.a.numpy()
        rows.append(
            {
                **instance_fields(inst),
                "single_std": float(pos.std()),
                "single_range": float(np.ptp(pos)),
                "tau_polarity": kendall_tau(a, np.abs(pos - 0.5)),
                "single_centre": centre,
                "tau_polarity_centred": kendall_tau(a, np.abs(pos - centre)),
                "tau_decision": kendall_tau(a, p[:, inst.pred].numpy()),
            }
        )
    return rows


def run_single_token(models) -> pd.DataFrame:
    """Rule ``staying_true_single_token``: one row per model and instance."""
    rows = []
    for name, ex, instances in models:
        rows += [{"model": name, **r} for r in single_token_rows(instances, ex)]
    return pd.DataFrame(rows)


def single_token_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per model: median spread and median tau (instances with >= 2 tokens for the tau)."""
    return (
        df.groupby("model", sort=False)
        .agg(
            instances=("id", "size"),
            median_single_std=("single_std", "median"),
            median_single_range=("single_range", "median"),
            median_tau_polarity=("tau_polarity", "median"),
            single_centre=("single_centre", "first"),
            median_tau_polarity_centred=("tau_polarity_centred", "median"),
            median_tau_decision=("tau_decision", "median"),
            tau_defined=("tau_polarity", "count"),
        )
        .reset_index()
    )


# ----------------------------------------------------------------------------- erasure, ranks


def run_staying_true_erasure(models, seed: int) -> pd.DataFrame:
    """Rule ``staying_true_erasure``: one row per model: the single-weight erasure summary, the
    set erasure's median fraction removed (never flipping = 1) and never-flip share per
    order, and the median rank agreement (Kendall tau) of attention with gradient and
    leave-one-out importance: the ``erasure`` and ``rank_agreement`` tests."""
    single, sets, ranks = [], [], []
    for name, ex, instances in models:
        s, e, skipped = erasure_tables(instances, ex, seed)
        single += [{"encoder": name, **r} for r in s]
        sets += [{"encoder": name, **r} for r in e]
        ranks += [{"encoder": name, **r} for r in rank_agreement_rows(instances, ex)]
        log.info("%s: %d instances, %d skipped (fewer than 2 items)", name, len(s), skipped)
    out = single_summary(pd.DataFrame(single))
    wide = set_summary(pd.DataFrame(sets)).pivot(
        index="encoder", columns="order", values=["median_fraction_never_as_1", "never_flips_share"]
    )
    wide.columns = [f"set_{col}_{order}" for col, order in wide.columns]
    out = out.merge(wide.reset_index(), on="encoder")
    tau = pd.DataFrame(ranks).groupby("encoder", sort=False)[["tau_gradient", "tau_leave_one_out"]].median()
    out = out.merge(tau.add_prefix("median_").reset_index(), on="encoder")
    return out.rename(columns={"encoder": "model"})
