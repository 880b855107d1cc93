"""GLUE inputs as word-piece ids and their padded batches: shared by the fine-tuning
(Kovaleva et al.) and by the analyses that score a fine-tuned model (rollout, head importance).

Inputs are prepared-input records from ``analysis.core.glue.reader.read_split`` (``meta.label``).
Pairs longer than ``max_len`` word pieces are truncated (longest first), and counted.
"""

from __future__ import annotations

import torch


def encode(tokenizer, records: list[dict], max_len: int) -> tuple[list[dict], dict]:
    """Word-piece ids of every record (truncated to ``max_len``) with its label."""
    items, truncated = [], 0
    for rec in records:
        full = tokenizer(*rec["words"], is_split_into_words=True)
        enc = tokenizer(*rec["words"], is_split_into_words=True, truncation=True, max_length=max_len)
        truncated += len(full["input_ids"]) > max_len
        item = {"id": rec["id"], "input_ids": list(enc["input_ids"]), "label": rec["meta"]["label"]}
        if "token_type_ids" in enc:
            item["token_type_ids"] = list(enc["token_type_ids"])
        items.append(item)
    return items, {"examples": len(items), "truncated": int(truncated)}


def collate(items: list[dict], pad_id: int, device="cpu") -> dict:
    """Pad a list of encoded items into model inputs (+ ``labels``)."""
    n = max(len(it["input_ids"]) for it in items)
    ids = torch.full((len(items), n), pad_id, dtype=torch.long)
    mask = torch.zeros((len(items), n), dtype=torch.long)
    types = torch.zeros((len(items), n), dtype=torch.long)
    for i, it in enumerate(items):
        k = len(it["input_ids"])
        ids[i, :k] = torch.tensor(it["input_ids"])
        mask[i, :k] = 1
        if "token_type_ids" in it:
            types[i, :k] = torch.tensor(it["token_type_ids"])
    batch = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in items[0]:
        batch["token_type_ids"] = types
    labels = [it["label"] for it in items]
    batch["labels"] = torch.tensor(labels, dtype=torch.float if isinstance(labels[0], float) else torch.long)
    return {k: v.to(device) for k, v in batch.items()}


def eval_batches(items: list[dict], batch_size: int) -> list[list[int]]:
    """Indices of ``items`` in batches of similar length (less padding); every item once."""
    order = sorted(range(len(items)), key=lambda i: (len(items[i]["input_ids"]), i))
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
