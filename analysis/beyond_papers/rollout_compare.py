"""Raw attention, rollout and flow of a fine-tuned classifier against token importance, per layer.

Abnar & Zuidema 2020 (samiraabnar/attention_flow) compare, at every layer l, the raw attention
of layer l, the rollout through layer l and the flow through layer l with two importance
targets (``TARGETS``), Spearman per input:

- ``gradient``: |sum over the embedding dimensions of d logit(true label) / d e_t|, e_t the
  input (word-piece) embedding of token t, the ``inputs_embeds`` of the model (their
  ``compute_corel_distilbert_sst.py``: ``tf.abs(tf.reduce_sum(grads, -1))`` of the true
  label's logit);
- ``blankout``: token t replaced by the tokenizer's mask token ([UNK] when it has none), the
  length kept: |P(true label | input) - P(true label | input with t blanked)| (their
  ``run_bert_sv.py``, the subject-verb agreement script, not the SST-2 one:
  ``abs(main_diff_score - extended_diff_scores)`` with the score
  P(correct) - P(wrong); with two classes that is 2 x the change of P(true label): the same
  ranks);
- ``deletion`` (this project's earlier target, a switch): the signed drop in P(predicted
  class) when token t is deleted (the input one token shorter; Serrano & Smith's erasure).

Which positions score and where the attention is read from is the protocol (``PROTOCOLS``):
``authors_sst2`` (the default, config ``beyond_papers.rollout.protocol``) reads the maximum over
every query position's row and scores every position, special tokens included (their SST-2
script: ``.max(axis=0)`` over the rows, no token left out); ``cls_row`` reads the [CLS]-like
position's row (the position the classification head pools; from the tokenizer with
``models.token_kinds``) and scores the non-special tokens only (special tokens are never blanked
or deleted). Through one layer rollout and flow are the same scores under either protocol (the
flow from q to j over one layer is the one edge A~_1[q, j], already normalised; equal up to the
flow's integer rounding, about 1e-7), so they can differ from layer 2 on only.

The tables made of ``token_table``'s scores (correlations, summaries, pairs): :mod:`analysis.beyond_papers.rollout_tables`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from analysis.beyond_papers.rollout import layer_scores
from analysis.core.glue.batches import collate, eval_batches
from analysis.core.models import SPECIAL_KINDS, checked_attentions, token_kinds

METHODS = ("raw", "rollout", "flow")
TARGETS = ("gradient", "blankout", "deletion")
PROTOCOLS = ("cls_row", "authors_sst2")


def query_position(tokenizer, input_ids) -> int:
    """The [CLS]-like position of one input (from the tokenizer; an error when absent)."""
    kinds = token_kinds(tokenizer, input_ids)
    if "C" not in kinds:
        raise ValueError("the input has no [CLS]-like token (tokenizer cls_token / bos_token): nothing to roll out to")
    return kinds.index("C")


def blank_id(tokenizer) -> int:
    """The id that blanks a token out: the tokenizer's mask token, else its unknown token."""
    for token_id in (tokenizer.mask_token_id, tokenizer.unk_token_id):
        if token_id is not None:
            return int(token_id)
    raise ValueError("the tokenizer has neither a mask nor an unknown token: nothing to blank a token out with")


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


def input_gradients(model, items: list[dict], pad_id: int, batch_size: int) -> list[np.ndarray]:
    """Per item, (n,) |sum_d d logit(label) / d e_{t,d}| with e_t the input embedding of token t
    (the model's ``inputs_embeds``). One backward pass per batch: the examples of a batch do
    not interact (padding is masked), so the gradient of the sum of their true logits is each
    example's own gradient."""
    device = next(model.parameters()).device
    grads: list = [None] * len(items)
    embeddings = model.get_input_embeddings()
    for idx in eval_batches(items, batch_size):
        batch = collate([items[i] for i in idx], pad_id, device)
        labels = batch.pop("labels")
        with torch.enable_grad():
            embeds = embeddings(batch.pop("input_ids")).detach().requires_grad_(True)
            logits = model(**batch, inputs_embeds=embeds).logits
            (grad,) = torch.autograd.grad(logits.gather(1, labels[:, None]).sum(), embeds)
        scores = grad.sum(-1).abs().double().cpu().numpy()
        for b, i in enumerate(idx):
            grads[i] = scores[b, : len(items[i]["input_ids"])]
    return grads


@torch.inference_mode()
def blank_out(model, item: dict, positions: list[int], pad_id: int, target: int, replace_id: int) -> np.ndarray:
    """|P(target | input) - P(target | input with token p replaced by ``replace_id``)| for every
    p in ``positions`` (the length kept)."""
    device = next(model.parameters()).device
    variants = [item] + [
        {**item, "input_ids": [replace_id if i == p else t for i, t in enumerate(item["input_ids"])]} for p in positions
    ]
    batch = collate(variants, pad_id, device)
    batch.pop("labels")
    probs = torch.softmax(model(**batch).logits.double(), -1)[:, target].cpu().numpy()
    return np.abs(probs[0] - probs[1:])


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


def token_table(
    model,
    tokenizer,
    items: list[dict],
    flow_ids: set,
    residual: float,
    batch_size: int,
    targets: tuple[str, ...] = ("gradient", "blankout"),
    protocol: str = "authors_sst2",
) -> pd.DataFrame:
    """One row per (input, layer, token): the token, whether it is special, whether it is
    scored (``protocol``), its raw / rollout / flow score at that layer (flow only for inputs
    in ``flow_ids``, else NaN) and its importance under each of ``targets`` (NaN where not
    scored; the gradient is kept for every token). Layers are 1-indexed; the targets repeat on
    every layer."""
    unknown = set(targets) - set(TARGETS)
    if unknown or protocol not in PROTOCOLS:
        raise ValueError(f"targets {sorted(unknown)} / protocol {protocol!r}: expected {TARGETS} / {PROTOCOLS}")
    pad_id = tokenizer.pad_token_id
    maps, probs = maps_and_probs(model, items, pad_id, batch_size)
    grads = input_gradients(model, items, pad_id, batch_size) if "gradient" in targets else None
    replace_id = blank_id(tokenizer) if "blankout" in targets else None
    frames = []
    for k, (item, att, p) in enumerate(zip(items, maps, probs)):
        ids = item["input_ids"]
        n, n_layers = len(ids), len(att)
        kinds = token_kinds(tokenizer, ids)
        special = np.array([c in SPECIAL_KINDS for c in kinds])
        scored = ~special if protocol == "cls_row" else np.ones(n, bool)
        query = query_position(tokenizer, ids) if protocol == "cls_row" else None
        scores = layer_scores(att, query, residual, flow=item["id"] in flow_ids)
        positions = np.flatnonzero(scored).tolist()
        predicted, label = int(np.argmax(p)), int(item["label"])
        importance = {}
        for target in targets:
            values = np.full(n, np.nan)
            if target == "gradient":
                values = grads[k]
            elif positions and target == "blankout":
                values[positions] = blank_out(model, item, positions, pad_id, label, replace_id)
            elif positions:
                values[positions] = leave_one_out(model, item, positions, pad_id, predicted)
            importance[target] = np.tile(values, n_layers)
        frames.append(
            pd.DataFrame(
                {
                    "id": item["id"],
                    "layer": np.repeat(np.arange(1, n_layers + 1), n),
                    "position": np.tile(np.arange(n), n_layers),
                    "token": np.tile(tokenizer.convert_ids_to_tokens(ids), n_layers),
                    "special": np.tile(special, n_layers),
                    "scored": np.tile(scored, n_layers),
                    **{m: scores[m].ravel() if m in scores else np.nan for m in METHODS},
                    **importance,
                    "predicted": predicted,
                    "p_predicted": p[predicted],
                    "label": label,
                    "p_label": p[label],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)
