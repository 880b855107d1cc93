"""The configured Hugging Face encoder, frozen: the token states the ``transformer`` attention
classifier pools and the [CLS]-like state the ``cls_probe`` reads out."""

from __future__ import annotations

import numpy as np
import torch


class FrozenTransformer:
    """The configured encoder, frozen: last-layer states of the word pieces (special tokens
    excluded) and the [CLS]-like state, for sentences given as word lists."""

    def __init__(self, model, tokenizer, max_len: int):
        from analysis.core.models import token_kinds

        self.model, self.tok, self.max_len = model, tokenizer, max_len
        self.device = next(model.parameters()).device
        self._kinds = token_kinds
        for p in model.parameters():
            p.requires_grad_(False)

    def encode_ids(self, words: list[str], counts: dict | None = None) -> tuple[list[int], list[int], int]:
        """(input_ids, item positions (non-special pieces), position of the [CLS]-like token)."""
        enc = self.tok(words, is_split_into_words=True, truncation=True, max_length=self.max_len)
        full = self.tok(words, is_split_into_words=True)
        if counts is not None and len(full["input_ids"]) > self.max_len:
            counts["truncated"] = counts.get("truncated", 0) + 1
        ids = list(enc["input_ids"])
        kinds = self._kinds(self.tok, ids)
        items = [i for i, w in enumerate(enc.word_ids()) if w is not None]
        cls = kinds.find("C")
        return ids, items, cls

    def batch(self, ids_list):
        n = max(len(x) for x in ids_list)
        pad = self.tok.pad_token_id or 0
        ids = torch.full((len(ids_list), n), pad, dtype=torch.long)
        att = torch.zeros((len(ids_list), n), dtype=torch.long)
        for i, x in enumerate(ids_list):
            ids[i, : len(x)] = torch.tensor(x)
            att[i, : len(x)] = 1
        return ids.to(self.device), att.to(self.device)

    def forward(self, ids, att, inputs_embeds=None):
        if inputs_embeds is not None:
            return self.model(inputs_embeds=inputs_embeds, attention_mask=att).last_hidden_state
        return self.model(input_ids=ids, attention_mask=att).last_hidden_state

    @torch.inference_mode()
    def states(self, sentences: list[list[str]], batch_size: int = 64, counts: dict | None = None):
        """Per sentence: (item states float16 (n, d), [CLS] state float32 (d,)); length-sorted batches."""
        enc = [self.encode_ids(s, counts) for s in sentences]
        order = np.argsort([len(e[0]) for e in enc], kind="stable")
        out = [None] * len(enc)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            ids, att = self.batch([enc[i][0] for i in idx])
            H = self.forward(ids, att).float().cpu()
            for j, i in enumerate(idx):
                _, items, cls = enc[i]
                out[i] = (H[j, items].half(), H[j, max(cls, 0)].clone())
        return out
