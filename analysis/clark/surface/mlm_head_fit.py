"""Fitting a masked-LM head on a frozen encoder (rule mlm_head), for checkpoints without a
trained one (Clark et al. 2019, Fig. 3 needs the masked-LM loss; see ``analysis.clark.surface.mlm_head``).

The head is the architecture's own masked-LM head, whatever its module names (for BERT: dense +
GELU + LayerNorm, decoder tied to the frozen input embeddings, output bias), trained with Adam on
the cached final hidden states of BERT-style masked Wikipedia segments that the evaluation sample does not
use; its held-out loss and accuracy are reported.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import torch

from analysis.clark.surface.mlm_head import encoder_inputs, head_module, head_state, masked_batches

log = logging.getLogger(__name__)


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
    weights N(0, 0.02), norm scales 1, biases 0 (a family's layers without biases have none to
    set, e.g. ModernBERT's); the output bias (the vector of vocabulary
    size) set to the log unigram frequencies of ``targets`` (add-one smoothed) when given."""
    for p in model.parameters():
        p.requires_grad_(False)
    params = trainable_head_params(model)
    own = {p.data_ptr() for p in params}
    vocab = model.get_input_embeddings().weight.shape[0]
    norms = [m for m in head_module(model).modules() if is_norm(m)]
    scales = {m.weight.data_ptr() for m in norms if getattr(m, "weight", None) is not None}
    torch.manual_seed(seed)
    with torch.no_grad():
        for m in head_module(model).modules():
            if isinstance(m, torch.nn.Linear) and m.weight.data_ptr() in own:
                # drawn on the CPU whatever the device: a GPU run starts from the same head as a CPU run
                m.weight.copy_(torch.empty(m.weight.shape, dtype=m.weight.dtype).normal_(0.0, 0.02))
        for p in params:
            if p.data_ptr() in scales:
                p.fill_(1.0)
            elif p.ndim == 1 and p.shape[0] == vocab:
                if targets is not None:
                    freq = torch.bincount(targets.cpu(), minlength=vocab).double() + 1.0
                    p.copy_((freq / freq.sum()).log().to(p.dtype))
                else:
                    p.zero_()
            elif p.ndim == 1:  # every other vector of the head is a bias (a Linear's or a norm's, where it has one)
                p.zero_()
    return params


def is_norm(module) -> bool:
    """A normalisation layer (LayerNorm, RMSNorm or a family's own, e.g. ``DebertaLayerNorm``): its
    vector ``weight`` is a scale, initialised to 1; its bias, where the family has one, to 0."""
    if isinstance(module, (torch.nn.LayerNorm, torch.nn.RMSNorm, torch.nn.GroupNorm)):
        return True
    weight = getattr(module, "weight", None)
    return type(module).__name__.lower().endswith("norm") and isinstance(weight, torch.Tensor) and weight.ndim == 1


@dataclass(frozen=True)
class HeadFit:
    """How a masked-LM head is fitted (config ``clark_surface.mlm_head``): ``mask_prob`` of the
    pieces masked, ``epochs`` of Adam at rate ``lr`` on batches of ``batch_size`` masked tokens,
    seeded by ``seed`` (the masking, the head's initialisation and the batch order)."""

    seed: int
    mask_prob: float
    epochs: int
    lr: float
    batch_size: int


def fit_head(
    model, hidden: torch.Tensor, targets: torch.Tensor, fit: HeadFit, heldout: tuple | None = None, log=log
) -> list[dict]:
    """Train the head's own parameters (the encoder and tied embeddings frozen) by Adam on
    cached hidden states, from ``init_head``, as ``fit`` says; returns the training curve (one
    row per epoch)."""
    head = head_module(model)
    device = next(model.parameters()).device
    params = init_head(model, fit.seed, targets)
    for p in params:
        p.requires_grad_(True)
    opt = torch.optim.Adam(params, lr=fit.lr)
    g = torch.Generator().manual_seed(fit.seed)
    curve = []
    head.train()
    for epoch in range(1, fit.epochs + 1):
        order = torch.randperm(len(targets), generator=g)
        total = 0.0
        for s in range(0, len(order), fit.batch_size):
            sel = order[s : s + fit.batch_size]
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


def check_resegmented(segments: list[dict], evaluation: list[dict], evaluation_path, source_file: str) -> None:
    """Every evaluation record must be one of ``segments`` (the Wikipedia file segmented again,
    exactly as rule prepare_inputs did), word for word."""
    by_id = {s["id"]: s for s in segments}
    for rec in evaluation:
        if rec["id"] not in by_id or by_id[rec["id"]]["words"] != rec["words"]:
            raise ValueError(
                f"{evaluation_path}: segment {rec['id']} does not match the re-segmented "
                f"{source_file} (corpus options changed?)"
            )


def score_or_fit_head(
    model, info: dict, tokenizer, train_items: list[dict], held_items: list[dict], fit: HeadFit, log=log
) -> tuple[list[dict], list[dict] | None, dict]:
    """Score the checkpoint's own head on the held-out segments, or (when ``load_mlm`` found
    none) fit one on the training segments as ``fit`` says; returns (rows of the mlm_head table,
    training curve or None, the fitted head's state or {})."""
    seed, prob = fit.seed, fit.mask_prob
    held = masked_hidden(model, held_items, tokenizer, seed + 1, prob)[:2]
    if info["pretrained_head"]:
        return [{"head": "pre-trained", "split": "held-out", **evaluate_head(model, *held)}], None, {}
    tr = masked_hidden(model, train_items, tokenizer, seed, prob)[:2]
    log.info("cached %d masked training tokens, %d held-out", len(tr[1]), len(held[1]))
    init_head(model, seed, tr[1])
    rows = [{"head": "initial (unigram bias)", "split": "held-out", **evaluate_head(model, *held)}]
    curve = fit_head(model, *tr, fit, heldout=held, log=log)
    rows.append({"head": "fitted on frozen encoder", "split": "train", **evaluate_head(model, *tr)})
    rows.append({"head": "fitted on frozen encoder", "split": "held-out", **evaluate_head(model, *held)})
    return rows, curve, head_state(model)
