"""Text classifiers whose decision passes through one additive attention layer
(Serrano & Smith 2019; Jain & Wallace 2019), their vocabulary and their batches.

Every classifier is ``encoder -> additive (Bahdanau) attention pooling -> linear output``:

- ``none``: the word embeddings themselves are the token representations;
- ``cnn``: one 1-D convolution (width 3, ReLU) over the embeddings;
- ``lstm`` / ``gru``: a bidirectional recurrent encoder;
- ``transformer``: the configured Hugging Face encoder, frozen
  (:class:`analysis.explanation.frozen_transformer.FrozenTransformer`); its last-layer states of
  the word pieces (special tokens excluded from the pooling) are computed once.

Vocabulary: ``none``/``cnn``/``lstm``/``gru`` read SST-2's whitespace words (already
lower-cased and tokenised); dev words outside the train vocabulary map to ``<unk>``. The
``transformer`` classifier reads the model tokenizer's word pieces.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

WORD_ENCODERS = ("none", "cnn", "lstm", "gru")
ENCODERS = (*WORD_ENCODERS, "transformer", "transformer_finetuned")  # the last: encoder fine-tuned too
PAD, UNK = "<pad>", "<unk>"


class Vocab:
    def __init__(self, words: list[str]):
        self.words = [PAD, UNK, *[w for w in words if w not in (PAD, UNK)]]
        self.index = {w: i for i, w in enumerate(self.words)}

    def __len__(self):
        return len(self.words)

    def ids(self, words: list[str], counts: dict | None = None) -> list[int]:
        out = [self.index.get(w, 1) for w in words]
        if counts is not None:
            counts["unk_tokens"] = counts.get("unk_tokens", 0) + sum(i == 1 for i in out)
            counts["tokens"] = counts.get("tokens", 0) + len(out)
        return out

    @classmethod
    def from_sentences(cls, sentences, min_count: int = 1) -> Vocab:
        c = Counter(w for s in sentences for w in s)
        return cls(sorted(w for w, k in c.items() if k >= min_count))


# ----------------------------------------------------------------------------- models


class AdditiveAttention(nn.Module):
    """a = softmax_t(v^T tanh(W h_t + b)) over the unmasked positions (Bahdanau)."""

    def __init__(self, d: int, d_att: int):
        super().__init__()
        self.W = nn.Linear(d, d_att)
        self.v = nn.Linear(d_att, 1, bias=False)

    def forward(self, H, mask):
        e = self.v(torch.tanh(self.W(H))).squeeze(-1)
        return torch.softmax(e.masked_fill(~mask, float("-inf")), dim=-1)


class AttnClassifier(nn.Module):
    """encoder -> additive attention pooling -> linear output.

    For ``transformer`` the encoder is outside (frozen Hugging Face model): ``forward`` takes
    the token states ``H`` directly (``d_in`` = hidden size).
    """

    def __init__(
        self,
        encoder: str,
        d_in: int,
        hidden: int = 64,
        d_att: int = 64,
        n_classes: int = 2,
        vocab_size: int | None = None,
    ):
        super().__init__()
        if encoder not in ENCODERS:
            raise ValueError(f"unknown encoder {encoder!r}; one of {ENCODERS}")
        self.encoder = encoder
        if encoder in WORD_ENCODERS:
            self.emb = nn.Embedding(vocab_size, d_in, padding_idx=0)
        if encoder == "cnn":
            self.conv = nn.Conv1d(d_in, hidden, kernel_size=3, padding=1)
            d = hidden
        elif encoder in ("lstm", "gru"):
            rnn = nn.LSTM if encoder == "lstm" else nn.GRU
            self.rnn = rnn(d_in, hidden // 2, batch_first=True, bidirectional=True)
            d = 2 * (hidden // 2)
        else:
            d = d_in
        self.d = d
        self.attention = AdditiveAttention(d, d_att)
        self.out = nn.Linear(d, n_classes)

    def embed(self, ids):
        return self.emb(ids)

    def encode(self, X, mask):
        """Token representations H (B, n, d) from inputs X (B, n, d_in)."""
        X = X * mask.unsqueeze(-1).to(X.dtype)
        if self.encoder == "cnn":
            H = torch.relu(self.conv(X.transpose(1, 2))).transpose(1, 2)
        elif self.encoder in ("lstm", "gru"):
            lengths = mask.sum(1).cpu()
            packed = nn.utils.rnn.pack_padded_sequence(X, lengths, batch_first=True, enforce_sorted=False)
            H, _ = self.rnn(packed)
            H, _ = nn.utils.rnn.pad_packed_sequence(H, batch_first=True, total_length=X.shape[1])
        else:
            H = X
        return H * mask.unsqueeze(-1).to(H.dtype)

    def output(self, H, a):
        """Logits from representations H (B, n, d) and attention a (B, n)."""
        return self.out(torch.einsum("bn,bnd->bd", a, H))

    def forward(self, x, mask):
        """x: ids (B, n) for word encoders, states (B, n, d) for ``transformer``."""
        H = self.encode(self.embed(x), mask) if self.encoder in WORD_ENCODERS else x
        a = self.attention(H, mask)
        return self.output(H, a), a


# ----------------------------------------------------------------------------- batches


def _pad_ids(seqs):
    n = max(len(s) for s in seqs)
    ids = torch.zeros((len(seqs), n), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.as_tensor(s)
    return ids, _mask_from_lengths([len(s) for s in seqs], n)


def _mask_from_lengths(lengths, n):
    return torch.arange(n)[None, :] < torch.as_tensor(lengths)[:, None]


def _pad_states(states):
    n = max(s.shape[0] for s in states)
    H = torch.zeros((len(states), n, states[0].shape[1]))
    for i, s in enumerate(states):
        H[i, : s.shape[0]] = s.float()
    return H, _mask_from_lengths([s.shape[0] for s in states], n)


def make_batch(encoder: str, xs):
    """Pad a list of id lists (word encoders) or state tensors (transformer)."""
    return _pad_ids(xs) if encoder in WORD_ENCODERS else _pad_states(xs)


@dataclass
class TrainConfig:
    """Settings of a classifier's training (shared by every training of the explanation tests)."""

    epochs: int = 2
    batch_size: int = 32
    lr: float = 1e-3
    seed: int = 0
    hidden: int = 64
    d_att: int = 64


@torch.no_grad()
def predict(clf: AttnClassifier, xs, batch_size: int = 128) -> np.ndarray:
    """Predicted class of every input, in batches."""
    clf.eval()
    out = []
    for start in range(0, len(xs), batch_size):
        x, mask = make_batch(clf.encoder, xs[start : start + batch_size])
        out.append(clf(x, mask)[0].argmax(-1).numpy())
    return np.concatenate(out)
