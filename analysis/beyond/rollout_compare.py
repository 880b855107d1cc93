"""Raw attention, rollout and flow of a fine-tuned classifier against input erasure.

For each dev input: the [CLS]-like position's row (the position the classification head
pools; found with ``models.token_kinds`` from the tokenizer) of the raw last-layer attention
(heads averaged), of the rollout and of the attention flow (``analysis.beyond.rollout``),
and the leave-one-out importance of every non-special token: the drop in the probability of
the predicted class when that token is deleted from the input (the sequence gets one token
shorter; Serrano & Smith's and Abnar & Zuidema's erasure). Special tokens are never erased
and never scored. Per input, the Spearman correlation of each attention score with the
erasure importance over its non-special tokens (``spearman_table``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from analysis.beyond.rollout import query_rows
from analysis.core.models import SPECIAL_KINDS, checked_attentions, token_kinds
from analysis.shared.glue_batches import collate, eval_batches
from analysis.shared.metrics import spearman

METHODS = ("raw", "rollout", "flow")


def query_position(tokenizer, input_ids) -> int:
    """The [CLS]-like position of one input (from the tokenizer; an error when absent)."""
    kinds = token_kinds(tokenizer, input_ids)
    if "C" not in kinds:
        raise ValueError("the input has no [CLS]-like token (tokenizer cls_token / bos_token): nothing to roll out to")
    return kinds.index("C")


@torch.inference_mode()
def maps_and_probs(model, items: list[dict], pad_id: int, batch_size: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Unpadded (L, H, n, n) maps and class probabilities of every item (items' order)."""
    device = next(model.parameters()).device
    maps: list = [None] * len(items)
    probs = np.zeros((len(items), model.config.num_labels))
    for idx in eval_batches(items, batch_size):
        batch = collate([items[i] for i in idx], pad_id, device)
        batch.pop("labels")
        out = model(**batch, output_attentions=True)
        att = torch.stack(checked_attentions(model, out), 1).double().cpu().numpy()  # (B, L, H, N, N)
        probs[idx] = torch.softmax(out.logits.double(), -1).cpu().numpy()
        for b, i in enumerate(idx):
            n = len(items[i]["input_ids"])
            maps[i] = att[b, :, :, :n, :n]
    return maps, probs


@torch.inference_mode()
def leave_one_out(model, item: dict, positions: list[int], pad_id: int, target: int) -> np.ndarray:
    """P(target | input) - P(target | input without token p) for every p in ``positions``."""
    device = next(model.parameters()).device
    variants = [item] + [
        {
            k: ([t for i, t in enumerate(v) if i != p] if k in ("input_ids", "token_type_ids") else v)
            for k, v in item.items()
        }
        for p in positions
    ]
    batch = collate(variants, pad_id, device)
    batch.pop("labels")
    probs = torch.softmax(model(**batch).logits.double(), -1)[:, target].cpu().numpy()
    return probs[0] - probs[1:]


def token_table(model, tokenizer, items: list[dict], flow_ids: set, residual: float, batch_size: int) -> pd.DataFrame:
    """One row per (input, token): the token, whether it is special, its raw / rollout / flow
    score from the [CLS]-like position (flow only for inputs in ``flow_ids``, else NaN) and
    its erasure importance (NaN for special tokens)."""
    pad_id = tokenizer.pad_token_id
    maps, probs = maps_and_probs(model, items, pad_id, batch_size)
    frames = []
    for item, att, p in zip(items, maps, probs):
        ids = item["input_ids"]
        kinds = token_kinds(tokenizer, ids)
        query = query_position(tokenizer, ids)
        rows = query_rows(att, query, residual, flow=item["id"] in flow_ids)
        content = [i for i, k in enumerate(kinds) if k not in SPECIAL_KINDS]
        erasure = np.full(len(ids), np.nan)
        predicted = int(np.argmax(p))
        if content:
            erasure[content] = leave_one_out(model, item, content, pad_id, predicted)
        frames.append(
            pd.DataFrame(
                {
                    "id": item["id"],
                    "position": np.arange(len(ids)),
                    "token": tokenizer.convert_ids_to_tokens(ids),
                    "special": [k in SPECIAL_KINDS for k in kinds],
                    "raw": rows["raw"],
                    "rollout": rows["rollout"],
                    "flow": rows.get("flow", np.full(len(ids), np.nan)),
                    "erasure": erasure,
                    "predicted": predicted,
                    "p_predicted": p[predicted],
                    "label": item["label"],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def spearman_table(tokens: pd.DataFrame, min_tokens: int = 3) -> pd.DataFrame:
    """Per (input, method): Spearman of the method's scores with erasure importance over the
    input's non-special tokens; inputs with fewer than ``min_tokens`` of them are left out,
    and a constant erasure vector (no token changes the prediction) gives NaN."""
    rows = []
    for input_id, g in tokens[~tokens.special].groupby("id", sort=False):
        if len(g) < min_tokens:
            continue
        erasure = g["erasure"].to_numpy()
        for method in METHODS:
            scores = g[method].to_numpy()
            if np.isnan(scores).any():
                continue  # flow not computed for this input
            rho = np.nan if np.ptp(erasure) == 0 or np.ptp(scores) == 0 else spearman(scores, erasure)
            rows.append({"id": input_id, "method": method, "spearman": rho, "n_tokens": len(g)})
    return pd.DataFrame(rows, columns=["id", "method", "spearman", "n_tokens"])


def summary_table(per_input: pd.DataFrame) -> pd.DataFrame:
    """Per method: inputs, mean (with its bootstrap interval) / median / quartiles of the
    Spearman correlations, the share above zero; NaN correlations (constant vectors) are
    counted, not averaged."""
    rows = []
    for method in METHODS:
        rho = per_input.loc[per_input.method == method, "spearman"]
        ok = rho.dropna()
        rows.append(
            {
                "method": method,
                "inputs": int(len(rho)),
                "undefined": int(rho.isna().sum()),
                "mean": ok.mean(),
                "median": ok.median(),
                "q25": ok.quantile(0.25),
                "q75": ok.quantile(0.75),
                "share_positive": float((ok > 0).mean()) if len(ok) else np.nan,
                **dict(zip(("mean_ci95_low", "mean_ci95_high"), bootstrap_ci(ok.to_numpy()))),
            }
        )
    return pd.DataFrame(rows)


def bootstrap_ci(values: np.ndarray, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean (seeded; NaN for fewer than 2 values)."""
    if len(values) < 2:
        return np.nan, np.nan
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(n_boot, len(values)))].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def paired_table(per_input: pd.DataFrame) -> pd.DataFrame:
    """Per pair of methods, on the inputs where both are defined: mean difference of the
    Spearman correlations (with its bootstrap interval) and the share of inputs where the
    first is higher."""
    wide = per_input.pivot(index="id", columns="method", values="spearman")
    rows = []
    for a, b in (("rollout", "raw"), ("flow", "raw"), ("flow", "rollout")):
        if a not in wide or b not in wide:
            continue
        both = wide[[a, b]].dropna()
        diff = both[a] - both[b]
        rows.append(
            {
                "first": a,
                "second": b,
                "inputs": len(both),
                "mean_difference": diff.mean(),
                "share_first_higher": float((diff > 0).mean()) if len(both) else np.nan,
                **dict(zip(("difference_ci95_low", "difference_ci95_high"), bootstrap_ci(diff.to_numpy()))),
            }
        )
    return pd.DataFrame(rows)


def pick_example(tokens: pd.DataFrame, max_tokens: int) -> str:
    """The first input (in draw order) with flow computed and at most ``max_tokens`` tokens
    (special included), else the shortest one with flow."""
    sizes = tokens.groupby("id", sort=False).agg(n=("position", "size"), flow=("flow", lambda f: f.notna().all()))
    with_flow = sizes[sizes.flow] if sizes.flow.any() else sizes
    fits = with_flow[with_flow.n <= max_tokens]
    return str(fits.index[0] if len(fits) else with_flow.n.idxmin())
