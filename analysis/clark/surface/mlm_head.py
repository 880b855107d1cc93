"""Masked-LM heads for the gradient-importance analysis (Clark et al. 2019, Fig. 3): the
masked-LM model of a checkpoint, its head module, and BERT masking.

Gradients of the masked-LM loss need a masked-LM head. A checkpoint trained with one
(bert-base-uncased) is used as it is. A checkpoint without one (the embedded MiniLM, a
sentence-transformers encoder) gets a head fitted on the *frozen* encoder
(``analysis.clark.surface.mlm_head_fit``, rule mlm_head), saved with ``head_state`` and loaded back
with ``load_fitted_head``. Whether a checkpoint has a trained head is read from
``from_pretrained``'s missing keys, never assumed from the model name.

Masking follows BERT: 15% of the non-special tokens (at least one per segment) are chosen;
80% of them become the mask token, 10% a random vocabulary entry, 10% stay; the loss is the
cross-entropy of the original token at the chosen positions. Every segment's masking comes
from its own seeded generator, so results do not depend on batching.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from analysis.core.extraction import segment_ids
from analysis.core.models import SPECIAL_KINDS, TINY, _path_for, build_tiny_random, default_device


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


class _GivenStates(torch.nn.Module):
    """Stands in for the encoder inside a masked-LM model: returns the hidden states it is given,
    so that the model's own forward applies its own head to them (any attribute the head's code
    reads from the encoder, e.g. DeBERTa's embeddings, comes from the real one)."""

    def __init__(self, encoder, hidden):
        super().__init__()
        object.__setattr__(self, "_encoder", encoder)  # not a submodule: its parameters stay where they are
        self.hidden = hidden

    def forward(self, *args, **kwargs):
        from transformers.modeling_outputs import BaseModelOutput

        return BaseModelOutput(last_hidden_state=self.hidden)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(object.__getattribute__(self, "_encoder"), name)


class MaskedLMHead:
    """The masked-LM head of ``model`` (an ``AutoModelForMaskedLM``), whatever its module names:
    ``head(hidden)`` maps final hidden states (..., hidden) to vocabulary logits through the
    model's own forward with the encoder left out; ``children`` are the model's modules beside
    the encoder, ``parameters()`` their own (weights tied to the encoder excluded)."""

    def __init__(self, model):
        self.model = model
        prefix = model.base_model_prefix
        self.children = [m for name, m in model.named_children() if name != prefix]
        if not self.children:
            raise NotImplementedError(f"{type(model).__name__}: no masked-LM head beside the encoder")

    def __call__(self, hidden: torch.Tensor) -> torch.Tensor:
        model, prefix = self.model, self.model.base_model_prefix
        encoder = getattr(model, prefix)
        states = hidden.reshape(1, -1, hidden.shape[-1]) if hidden.dim() < 3 else hidden
        ids = torch.zeros(states.shape[:2], dtype=torch.long, device=states.device)
        setattr(model, prefix, _GivenStates(encoder, states))
        try:
            logits = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits
        finally:
            setattr(model, prefix, encoder)
        return logits.reshape(*hidden.shape[:-1], logits.shape[-1])

    def parameters(self) -> list[torch.nn.Parameter]:
        shared = {p.data_ptr() for p in self.model.base_model.parameters()}
        out, seen = [], set()
        for m in self.modules():
            for p in m.parameters(recurse=False):
                if p.data_ptr() not in shared and p.data_ptr() not in seen:
                    out.append(p)
                    seen.add(p.data_ptr())
        return out

    def modules(self):
        """Every module of the head (each child beside the encoder and its submodules)."""
        for child in self.children:
            yield from child.modules()

    def train(self, mode: bool = True):
        for m in self.children:
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)


def head_module(model) -> MaskedLMHead:
    """The masked-LM head of ``model`` (see ``MaskedLMHead``)."""
    return MaskedLMHead(model)


def head_state(model) -> dict:
    """The head's own parameters and buffers, named as in the model (tied decoder weight excluded)."""
    prefix = model.base_model_prefix + "."
    shared = {p.data_ptr() for p in model.base_model.parameters()}
    return {
        k: v.detach().cpu().clone()
        for k, v in model.state_dict().items()
        if not k.startswith(prefix) and v.data_ptr() not in shared
    }


def bert_mask(
    input_ids, kinds: str, rng: np.random.Generator, vocab_size: int, mask_id: int, prob: float
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


def load_fitted_head(model, info: dict, head_info: dict, state_path) -> None:
    """Check that rule mlm_head's ``head_info`` agrees with the checkpoint about its head and,
    when the checkpoint has no trained head, load the fitted one from ``state_path``."""
    if info["pretrained_head"] != head_info["pretrained_head"]:
        raise RuntimeError(
            f"{state_path}: rule mlm_head disagrees with the checkpoint about its masked-LM head; rerun mlm_head"
        )
    if info["pretrained_head"]:
        return
    state = torch.load(state_path, map_location="cpu")
    own = head_state(model)
    missing = sorted(set(own) - set(state))
    unexpected = sorted(set(state) - set(own))
    if missing or unexpected:
        raise RuntimeError(f"{state_path}: head state does not fit (missing {missing}, unexpected {unexpected})")
    model.load_state_dict(state, strict=False)


def head_description(head_info: dict, head_table: pd.DataFrame) -> str:
    """Where the head comes from and its last held-out loss and accuracy (rule mlm_head's outputs)."""
    held = head_table[(head_table.split == "held-out") & (head_table["head"] != "initial (unigram bias)")].iloc[-1]
    return f"{head_info['head_source']}; held-out MLM loss {held.loss:.2f}, accuracy {100 * held.accuracy:.1f}%"
