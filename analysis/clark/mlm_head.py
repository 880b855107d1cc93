"""Masked-LM heads for the gradient-importance analysis (Clark et al. 2019, Fig. 5).

Gradients of the masked-LM loss need a masked-LM head. A checkpoint trained with one
(bert-base-uncased) is used as it is. A checkpoint without one (the embedded MiniLM, a
sentence-transformers encoder) gets a head fitted here on the *frozen* encoder: the
architecture's own head module (for BERT: dense + GELU + LayerNorm, decoder tied to the
frozen input embeddings, output bias), trained with Adam on BERT-style masked Wikipedia
segments that the evaluation sample does not use; its held-out loss and accuracy are
reported. Whether a checkpoint has a trained head is read from ``from_pretrained``'s
missing keys, never assumed from the model name.

Masking follows BERT: 15% of the non-special tokens (at least one per segment) are chosen;
80% of them become the mask token, 10% a random vocabulary entry, 10% stay; the loss is the
cross-entropy of the original token at the chosen positions. Every segment's masking comes
from its own seeded generator, so results do not depend on batching.
"""

from __future__ import annotations

import logging

import numpy as np
import torch

from analysis.core.extraction import segment_ids
from analysis.core.models import TINY, _path_for, build_tiny_random, default_device

log = logging.getLogger(__name__)

SPECIAL_KINDS = frozenset("CSX")


def load_mlm(spec: str, device: str | None = None) -> tuple[torch.nn.Module, dict]:
    """The masked-LM model of ``spec`` in eval mode, eager attention, and a description:
    ``{"pretrained_head": bool, "missing_head_keys": [...]}``."""
    from transformers import AutoModelForMaskedLM

    device = device or default_device()
    if spec == TINY:
        model = build_tiny_random("mlm")
        missing = sorted(k for k, _ in model.named_parameters() if not k.startswith(model.base_model_prefix + "."))
    else:
        model, info = AutoModelForMaskedLM.from_pretrained(
            _path_for(spec), attn_implementation="eager", output_loading_info=True
        )
        missing = head_keys_missing(model, info["missing_keys"])
    if getattr(model.config, "_attn_implementation", "eager") != "eager":
        raise RuntimeError(f"{spec}: attention implementation is not eager")
    return model.to(device).eval(), {"pretrained_head": not missing, "missing_head_keys": missing}


def head_keys_missing(model, missing_keys) -> list[str]:
    """Missing checkpoint keys outside the encoder, ignoring weights tied to a loaded one."""
    prefix = model.base_model_prefix + "."
    missing = set(missing_keys)
    tied = getattr(model, "_tied_weights_keys", None) or {}
    if not isinstance(tied, dict):  # older transformers: a list of tied targets
        tied = {k: None for k in tied}
    out = []
    for k in sorted(missing):
        if k.startswith(prefix):
            continue
        if k in tied and tied[k] is not None and tied[k] not in missing:
            continue  # e.g. decoder weight tied to loaded input embeddings
        out.append(k)
    return out


def head_module(model) -> torch.nn.Module:
    """The module that maps final hidden states to vocabulary logits (``cls`` for BERT)."""
    children = [m for name, m in model.named_children() if name != model.base_model_prefix]
    if len(children) != 1:
        raise NotImplementedError(
            f"{type(model).__name__}: expected one head module beside the encoder, found "
            f"{[n for n, _ in model.named_children()]}"
        )
    return children[0]


def head_state(model) -> dict:
    """Trainable parameters of the head (the tied decoder weight excluded)."""
    shared = {p.data_ptr() for p in model.base_model.parameters()}
    return {
        k: v.detach().cpu().clone() for k, v in head_module(model).state_dict().items() if v.data_ptr() not in shared
    }


def bert_mask(
    input_ids, kinds: str, rng: np.random.Generator, vocab_size: int, mask_id: int, prob: float = 0.15
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BERT-style masking of one segment: (masked ids, chosen positions, original ids there)."""
    ids = np.asarray(input_ids, dtype=np.int64).copy()
    cand = np.array([i for i, k in enumerate(kinds) if k not in SPECIAL_KINDS], dtype=np.int64)
    if len(cand) == 0:
        return ids, np.zeros(0, np.int64), np.zeros(0, np.int64)
    n = max(1, int(round(prob * len(cand))))
    pos = np.sort(rng.choice(cand, size=n, replace=False))
    targets = ids[pos].copy()
    r = rng.random(n)
    ids[pos[r < 0.8]] = mask_id
    rand = pos[(r >= 0.8) & (r < 0.9)]
    ids[rand] = rng.integers(0, vocab_size, size=len(rand))
    return ids, pos, targets


def masked_batches(items: list[dict], tokenizer, seed: int, prob: float, batch_size: int, device):
    """Yield (batch dict for the encoder, [(row, positions, targets)], item indices), masking
    item ``i`` with the generator seeded by (seed, i)."""
    mask_id = tokenizer.mask_token_id
    if mask_id is None:
        raise ValueError("the tokenizer has no mask token: a masked-LM loss is undefined")
    vocab = len(tokenizer)
    for start in range(0, len(items), batch_size):
        idx = list(range(start, min(len(items), start + batch_size)))
        n_max = max(items[i]["n"] for i in idx)
        ids = np.full((len(idx), n_max), tokenizer.pad_token_id or 0, dtype=np.int64)
        att = np.zeros((len(idx), n_max), dtype=np.int64)
        tt = np.zeros((len(idx), n_max), dtype=np.int64)
        masks = []
        for b, i in enumerate(idx):
            it = items[i]
            rng = np.random.default_rng([seed, i])
            m_ids, pos, tgt = bert_mask(it["input_ids"], it["kinds"], rng, vocab, mask_id, prob)
            ids[b, : it["n"]] = m_ids
            att[b, : it["n"]] = 1
            tt[b, : it["n"]] = segment_ids(it)
            masks.append((b, pos, tgt))
        batch = {"input_ids": ids, "attention_mask": att, "token_type_ids": tt}
        yield {k: torch.as_tensor(v, device=device) for k, v in batch.items()}, masks, idx


def encoder_inputs(model, batch: dict) -> dict:
    if getattr(model.config, "type_vocab_size", 2) < 2:
        batch = {k: v for k, v in batch.items() if k != "token_type_ids"}
    return batch


def masked_hidden(model, items, tokenizer, seed: int, prob: float, batch_size: int = 32):
    """Final hidden states (frozen encoder) at the masked positions and their targets."""
    device = next(model.parameters()).device
    hs, ts, seg = [], [], []
    enc = model.base_model
    with torch.inference_mode():
        for batch, masks, idx in masked_batches(items, tokenizer, seed, prob, batch_size, device):
            h = enc(**encoder_inputs(model, batch)).last_hidden_state
            for (b, pos, tgt), i in zip(masks, idx):
                hs.append(h[b, torch.as_tensor(pos, device=device)].float().cpu())
                ts.append(torch.as_tensor(tgt))
                seg.append(torch.full((len(pos),), i))
    return torch.cat(hs), torch.cat(ts), torch.cat(seg)


def evaluate_head(model, hidden: torch.Tensor, targets: torch.Tensor, batch: int = 1024) -> dict:
    head = head_module(model)
    device = next(model.parameters()).device
    loss = correct = 0.0
    with torch.inference_mode():
        for s in range(0, len(targets), batch):
            logits = head(hidden[s : s + batch].to(device)).float()
            t = targets[s : s + batch].to(device)
            loss += torch.nn.functional.cross_entropy(logits, t, reduction="sum").item()
            correct += (logits.argmax(-1) == t).sum().item()
    n = len(targets)
    return {"loss": loss / max(n, 1), "accuracy": correct / max(n, 1), "n_tokens": n}


def trainable_head_params(model) -> list[torch.nn.Parameter]:
    """The head's own parameters: everything in the head module except weights shared with
    the encoder (the decoder weight tied to the input embeddings stays frozen)."""
    shared = {p.data_ptr() for p in model.base_model.parameters()}
    out, seen = [], set()
    for p in head_module(model).parameters():
        if p.data_ptr() not in shared and p.data_ptr() not in seen:
            out.append(p)
            seen.add(p.data_ptr())
    return out


def init_head(model, seed: int = 0, targets: torch.Tensor | None = None) -> list[torch.nn.Parameter]:
    """Freeze the encoder and re-initialise the head's own parameters, seeded: linear
    weights N(0, 0.02), LayerNorm 1/0, biases 0; the output bias (the vector of vocabulary
    size) set to the log unigram frequencies of ``targets`` (add-one smoothed) when given."""
    for p in model.parameters():
        p.requires_grad_(False)
    params = trainable_head_params(model)
    own = {p.data_ptr() for p in params}
    vocab = model.get_input_embeddings().weight.shape[0]
    torch.manual_seed(seed)
    with torch.no_grad():
        for m in head_module(model).modules():
            if isinstance(m, torch.nn.Linear) and m.weight.data_ptr() in own:
                torch.nn.init.normal_(m.weight, std=0.02)
            elif isinstance(m, torch.nn.LayerNorm):
                torch.nn.init.ones_(m.weight)
                torch.nn.init.zeros_(m.bias)
        for p in params:
            if p.ndim == 1 and p.shape[0] == vocab:
                if targets is not None:
                    freq = torch.bincount(targets.cpu(), minlength=vocab).double() + 1.0
                    p.copy_((freq / freq.sum()).log().to(p.dtype))
                else:
                    p.zero_()
            elif p.ndim == 1 and not any(
                p is m.weight for m in head_module(model).modules() if isinstance(m, torch.nn.LayerNorm)
            ):
                p.zero_()
    return params


def fit_head(
    model,
    hidden: torch.Tensor,
    targets: torch.Tensor,
    epochs: int = 4,
    lr: float = 1e-3,
    batch: int = 256,
    seed: int = 0,
    heldout: tuple | None = None,
    log=log,
) -> list[dict]:
    """Train the head's own parameters (the encoder and tied embeddings frozen) by Adam on
    cached hidden states, from ``init_head``; returns the training curve (one row per epoch)."""
    head = head_module(model)
    device = next(model.parameters()).device
    params = init_head(model, seed, targets)
    for p in params:
        p.requires_grad_(True)
    opt = torch.optim.Adam(params, lr=lr)
    g = torch.Generator().manual_seed(seed)
    curve = []
    head.train()
    for epoch in range(1, epochs + 1):
        order = torch.randperm(len(targets), generator=g)
        total = 0.0
        for s in range(0, len(order), batch):
            sel = order[s : s + batch]
            logits = head(hidden[sel].to(device))
            loss = torch.nn.functional.cross_entropy(logits, targets[sel].to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(sel)
        row = {"epoch": epoch, "train_loss": total / len(targets)}
        head.eval()
        if heldout is not None:
            ev = evaluate_head(model, *heldout)
            row.update(heldout_loss=ev["loss"], heldout_accuracy=ev["accuracy"])
        head.train()
        curve.append(row)
        log.info("MLM head epoch %d: %s", epoch, {k: round(v, 4) for k, v in row.items()})
    head.eval()
    for p in params:
        p.requires_grad_(False)
    return curve


def training_segments(all_segments: list[dict], eval_ids: set, n_train: int, n_heldout: int, seed: int):
    """Segments not in the evaluation sample, shuffled (seeded), split train / held-out."""
    pool = [s for s in all_segments if s["id"] not in eval_ids]
    need = n_train + n_heldout
    if len(pool) < need:
        raise ValueError(f"only {len(pool)} segments outside the evaluation sample, {need} asked for")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(pool))[:need]
    chosen = [pool[i] for i in order]
    return chosen[:n_train], chosen[n_train:], len(pool)
