"""Attention extraction: prepared inputs -> one shard of word-piece attention maps."""

from __future__ import annotations

import logging

import numpy as np
import torch

from analysis.core.extraction_settings import Calibration, ShardSettings
from analysis.core.models import checked_attentions, shape_of, token_kinds
from analysis.core.precision import autocast, calibration_records, check_precision, choose_precision, header_record
from analysis.core.storage import write_shard

log = logging.getLogger(__name__)

POLICIES = ("split", "truncate", "error")
# token type ids fed with sentence pairs: "zeros" = 0 for every token of both segments (the
# authors' extraction, Clark et al. 2019, the default); "pairs" = the tokenizer's 0 for
# [CLS] A [SEP] and 1 for B [SEP] (as BERT was pre-trained)
SEGMENT_IDS = ("zeros", "pairs")


class TooLong(ValueError):
    pass


class NonFiniteMaps(FloatingPointError):
    """An attention map with NaN or inf (e.g. a float16 overflow): never written, never read."""


def _encode(tokenizer, words: list[list[str]]):
    return tokenizer(*words, is_split_into_words=True, add_special_tokens=True)


def _record_to_items(tokenizer, rec: dict, max_len: int, policy: str, counts: dict, segments: str) -> list[dict]:
    """Encode one record; inputs over ``max_len`` pieces are split, truncated or refused
    by ``policy`` and counted in ``counts``; token type ids by ``segments``."""
    words = rec["words"]
    enc = _encode(tokenizer, words)
    if len(enc["input_ids"]) <= max_len:
        return [_item(tokenizer, rec, enc, words, 0, segments)]
    counts["too_long"] = counts.get("too_long", 0) + 1
    if policy == "error":
        raise TooLong(f"example {rec['id']}: {len(enc['input_ids'])} word pieces > max_len {max_len}")
    if policy == "split" and len(words) == 1:
        # consecutive windows of whole words, each fitting max_len
        budget = max_len - tokenizer.num_special_tokens_to_add(pair=False)
        word_ids = enc.word_ids()
        pieces = np.bincount([w for w in word_ids if w is not None], minlength=len(words[0]))
        if pieces.max() > budget:
            raise TooLong(f"example {rec['id']}: a single word has {pieces.max()} pieces > {budget}")
        items, start, used = [], 0, 0
        for i, p in enumerate(pieces):
            if used + p > budget:
                items.append((start, i))
                start, used = i, 0
            used += p
        items.append((start, len(pieces)))
        counts["split_into"] = counts.get("split_into", 0) + len(items)
        out = []
        for part, (a, b) in enumerate(items):
            sub = [words[0][a:b]]
            out.append(_item(tokenizer, rec, _encode(tokenizer, sub), sub, a, segments, part=part))
        return out
    # truncate (also the fall-back for sentence pairs under 'split')
    counts["truncated"] = counts.get("truncated", 0) + 1
    enc = tokenizer(*words, is_split_into_words=True, truncation=True, max_length=max_len)
    return [_item(tokenizer, rec, enc, words, 0, segments, truncated=True)]


def type_ids(segments: str, seq_ids: list[int], tokenizer_ids=None) -> list[int]:
    """The token type ids to feed for one encoded input, by ``segments`` (``SEGMENT_IDS``):
    ``zeros``: 0 everywhere (the authors' extraction); ``pairs``: the tokenizer's own when it
    gives them, else each special token in the segment of the token before it
    (``[CLS] A [SEP] B [SEP]`` -> 0 ... 0 1 ... 1, as BERT was pre-trained; the closing
    separator belongs to B). Single-segment inputs get zeros either way."""
    if segments not in SEGMENT_IDS:
        raise ValueError(f"unknown segment_ids {segments!r}; one of {SEGMENT_IDS}")
    if segments == "zeros":
        return [0] * len(seq_ids)
    if tokenizer_ids is not None:
        return [int(t) for t in tokenizer_ids]
    out, cur = [], 0
    for s in seq_ids:
        cur = s if s >= 0 else cur
        out.append(cur)
    return out


def segment_ids(item: dict) -> list[int]:
    """The token type ids an encoded item is fed with (chosen by ``encode_records``)."""
    return list(item["token_type_ids"])


def _item(tokenizer, rec, enc, words, word_offset, segments, part=None, truncated=False) -> dict:
    ids = list(enc["input_ids"])
    seq_ids = [-1 if s is None else int(s) for s in enc.sequence_ids()]
    lens = [len(w) for w in words]
    word_ids = []
    for w, s in zip(enc.word_ids(), seq_ids):
        if w is None:
            word_ids.append(-1)
        else:
            word_ids.append(int(w) + word_offset + (lens[0] if s == 1 else 0))
    meta = dict(rec.get("meta", {}))
    if part is not None:
        meta.update(part=part, word_offset=word_offset)
    if truncated:
        meta["truncated"] = True
    return {
        "id": rec["id"] if part is None else f"{rec['id']}#{part}",
        "source_id": rec["id"],
        "n": len(ids),
        "tokens": tokenizer.convert_ids_to_tokens(ids),
        "input_ids": ids,
        "kinds": token_kinds(tokenizer, ids),
        "word_ids": word_ids,
        "seq_ids": seq_ids,
        "token_type_ids": type_ids(segments, seq_ids, enc.get("token_type_ids")),
        "meta": meta,
    }


def encode_records(
    tokenizer, records, max_len: int, policy: str = "split", segments: str = "zeros"
) -> tuple[list[dict], dict]:
    """Encode ``records`` (1 or 2 word lists each) into items; ``segments`` (``SEGMENT_IDS``)
    chooses the token type ids every item is fed with (``item["token_type_ids"]``)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown max_len policy {policy!r}; one of {POLICIES}")
    type_ids(segments, [])  # refuses an unknown choice before any work
    counts: dict = {"records": len(records)}
    items = []
    for rec in records:
        items.extend(_record_to_items(tokenizer, rec, max_len, policy, counts, segments))
    counts["examples"] = len(items)
    return items, counts


def batch_inputs(model, tokenizer, items: list[dict], idx: list[int], device) -> dict:
    """The padded model inputs of ``items[idx]``: right-padded (each input keeps its
    positions), built in one pass without the tokenizer's per-key Python padding."""
    n_max = max(items[i]["n"] for i in idx)
    ids = np.full((len(idx), n_max), tokenizer.pad_token_id or 0, dtype=np.int64)
    mask = np.zeros((len(idx), n_max), dtype=np.int64)
    types = np.zeros((len(idx), n_max), dtype=np.int64)
    for row, i in enumerate(idx):
        n = items[i]["n"]
        ids[row, :n] = items[i]["input_ids"]
        mask[row, :n] = 1
        types[row, :n] = segment_ids(items[i])
    batch = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    if getattr(model.config, "type_vocab_size", 2) < 2:
        del batch["token_type_ids"]
    return {k: torch.from_numpy(v).to(device) for k, v in batch.items()}


def forward_attentions(model, batch: dict, precision: str = "fp32") -> tuple:
    """The per-layer attentions (B, H, N, N) of one padded batch, under
    ``torch.inference_mode()`` and the autocast of ``precision`` (fp32 / bf16 / fp16)."""
    with torch.inference_mode(), autocast(precision, next(model.parameters()).device):
        out = model(**batch, output_attentions=True)
    return checked_attentions(model, out)


def as_float16(attentions) -> np.ndarray:
    """(B, L, H, N, N) float16 on the CPU: each layer cast straight into one buffer (no
    float32 stack, one copy per layer)."""
    b, h, n, _ = attentions[0].shape
    out = torch.empty((b, len(attentions), h, n, n), dtype=torch.float16, device=attentions[0].device)
    for layer, a in enumerate(attentions):
        out[:, layer].copy_(a)
    return out.cpu().numpy()


def length_batches(items: list[dict], batch_size: int) -> list[list[int]]:
    """Indices of ``items`` in batches of ``batch_size``, sorted by length (stable), so a
    batch is padded only to its own longest input."""
    order = sorted(range(len(items)), key=lambda i: items[i]["n"])
    return [order[s : s + batch_size] for s in range(0, len(order), batch_size)]


def iter_maps(
    model,
    tokenizer,
    items: list[dict],
    batch_size: int = 32,
    progress: bool = True,
    precision: str = "fp32",
    where: str = "maps",
):
    """Yield (index, float16 array (layers, heads, n, n)) for every item, in
    length-sorted batches; the arrays are views of the batch's buffer (copy to keep). A batch
    with a NaN or inf raises :class:`NonFiniteMaps` naming ``where`` (e.g. the shard)."""
    from tqdm.auto import tqdm

    device = next(model.parameters()).device
    bar = tqdm(total=len(items), disable=not progress, unit="ex", mininterval=5)
    for idx in length_batches(items, batch_size):
        att = as_float16(forward_attentions(model, batch_inputs(model, tokenizer, items, idx, device), precision))
        check_finite(att, [items[i]["id"] for i in idx], where, precision)
        for b, i in enumerate(idx):
            n = items[i]["n"]
            yield i, att[b, :, :, :n, :n]
        bar.update(len(idx))
    bar.close()


def check_finite(att: np.ndarray, ids: list[str], where: str, precision: str) -> None:
    """Raise :class:`NonFiniteMaps` when the batch ``att`` (inputs ``ids``) holds a NaN or inf."""
    bad = ~np.isfinite(att).reshape(len(ids), -1).all(axis=1)
    if bad.any():
        raise NonFiniteMaps(
            f"{where}: NaN or inf in the attention maps of {int(bad.sum())} input(s) "
            f"({', '.join(str(i) for i, b in zip(ids, bad) if b)[:200]}), precision {precision}; "
            "nothing was written (with bf16/fp16, set config key 'precision' to fp32)"
        )


def calibrate(
    model, tokenizer, precision: str, rates: dict | None = None, reference=None, max_len: int = 128, segments="zeros"
) -> dict:
    """The run's precision: ``precision.choose_precision`` on the fixed calibration inputs
    (``precision.CALIBRATION``, never a shard's own), run on ``reference``, a function that
    returns the run's pre-trained model (called only when a reduced precision is tried; None:
    ``model`` itself). Every shard of a model and its fine-tuned and random-init variants then
    make the same choice on one machine. ``rates``: the machine's matmul rates (rule
    ``measure_matmul``), measured here when None."""
    check_precision(precision)
    if precision == "fp32":
        return {"requested": precision, "used": "fp32", "reason": "fp32 requested"}
    items, _ = encode_records(tokenizer, calibration_records(), max_len, "truncate", segments)
    idx, loaded = list(range(len(items))), []

    def run_batch(p):
        if not loaded:
            loaded.append(model if reference is None else reference())
        ref = loaded[0]
        return forward_attentions(ref, batch_inputs(ref, tokenizer, items, idx, next(ref.parameters()).device), p)

    device = next(model.parameters()).device
    info = choose_precision(precision, run_batch, [it["n"] for it in items], device, rates=rates)
    log.info("precision %s -> %s (%s)", precision, info["used"], info["reason"])
    return {**info, "calibration_inputs": len(items)}


def extract_shard(
    model,
    tokenizer,
    records,
    stem,
    settings: ShardSettings,
    model_name: str = "",
    calibration: Calibration | None = None,
) -> dict:
    """Encode ``records``, run the model, write the shard at ``stem`` as ``settings`` say; return the
    header (``counts``: inputs split/truncated; ``precision``: requested, used and why, see
    ``analysis.core.precision``, decided on ``calibration``, default ``Calibration()``). Maps with a
    NaN or inf stop it (:class:`NonFiniteMaps`)."""
    calibration = calibration or Calibration()
    max_len, policy, segments, precision = settings.max_len, settings.policy, settings.segments, settings.precision
    items, counts = encode_records(tokenizer, records, max_len, policy, segments)
    n_layers, n_heads = shape_of(model)
    chosen = calibrate(model, tokenizer, precision, calibration.rates, calibration.reference, max_len, segments)
    if precision != "fp32":
        chosen["calibrated_on"] = calibration.reference_name or model_name
    header = {
        "model": model_name,
        "n_layers": n_layers,
        "n_heads": n_heads,
        "max_len": max_len,
        "policy": policy,
        "segment_ids": segments,
        "precision": header_record(chosen),
        "counts": counts,
        "cls_token": tokenizer.cls_token or tokenizer.bos_token,
        "sep_token": tokenizer.sep_token or tokenizer.eos_token,
    }
    maps = iter_maps(
        model, tokenizer, items, settings.batch_size, settings.progress, chosen["used"], where=f"shard {stem}"
    )
    write_shard(stem, header, items, maps)
    if counts.get("too_long"):
        log.warning("%d inputs longer than %d word pieces: %s", counts["too_long"], max_len, counts)
    return {**header, "precision": chosen}  # with the rates and timings behind the choice
