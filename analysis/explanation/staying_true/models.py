"""Tutek & Snajder 2020, "Staying True to Your Word" (rule ``staying_true_models``): the
recurrent attention classifier (the ``lstm`` :class:`AttnClassifier`: BiLSTM -> additive
attention -> linear) and four variants that keep each hidden state close to its input word.

- ``base``: the ``lstm`` classifier itself;
- ``concat``: attention and output read ``[h_t ; x_t]`` (the BiLSTM state beside its input
  embedding);
- ``residual``: they read ``h_t + x_t`` (``x_t`` through a bias-free linear map when the
  BiLSTM's size differs from the embedding's; none at the default size, which is the
  embedding's);
- ``tying``: the loss gains ``lambda * mean_t ||h_t - x_t||^2`` (squared L2 norm per token,
  mean over the sentences' real tokens; same map as ``residual`` if sizes differ); the
  embeddings are trainable, so the term can also be met by shrinking x_t towards the bounded
  BiLSTM states; ``tying_detach_embeddings`` stops its gradient into x_t (off = the paper's
  form), and :func:`state_norms` logs the mean ||x_t|| and ||h_t|| of every variant;
- ``mlm``: the loss gains ``lambda * CE`` of a masked-LM task: a seeded share of each
  sentence's words is replaced by ``<pad>`` (a zero vector), the BiLSTM re-reads the masked
  sentence and each masked word is predicted from its ``h_t`` through
  ``E (W h_t + b) + c`` with ``E`` the classifier's own embedding matrix (tied decoder).

Each variant's ``encode`` returns the states attention and output read, so the explanation
tests (:class:`~analysis.explanation.explainer.Explainer`, permutation, erasure, rank
agreement) run on them unchanged.

Accuracy kept (Tutek & Snajder Table 2): :func:`kept_table` is each regularised model's dev
accuracy minus the base model's, paired on the same dev sentences; :func:`kept_replicates` the
same on seeded bootstrap resamples of the dev sentences (each model's per-sentence correctness,
kept in the bundle as ``dev_correct``).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from torch import nn

from analysis.explanation.attn_classifiers import glove_init
from analysis.explanation.classifiers import AdditiveAttention, AttnClassifier, Vocab, make_batch, predict
from analysis.shared.bootstrap import unit_weights, with_resampled

log = logging.getLogger(__name__)

VARIANTS = ("base", "concat", "residual", "tying", "mlm")


@dataclass
class StayingTrueConfig:
    epochs: int = 2
    batch_size: int = 32
    lr: float = 1e-3
    seed: int = 0
    hidden: int | None = None  # BiLSTM output size; None = the embedding size
    d_att: int = 64
    tying_weight: float = 1.0
    mlm_weight: float = 1.0
    mlm_mask_prob: float = 0.15
    tying_detach_embeddings: bool = False  # tying term's gradient reaches h_t only (x_t detached)


class RegularisedLSTM(AttnClassifier):
    """The ``lstm`` attention classifier with one of :data:`VARIANTS`."""

    def __init__(self, variant: str, d_in: int, hidden: int, d_att: int, vocab_size: int, n_classes: int = 2):
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; one of {VARIANTS}")
        super().__init__("lstm", d_in, hidden, d_att, n_classes, vocab_size)
        self.variant = variant
        self.d_rnn = self.d
        if variant in ("residual", "tying") and self.d_rnn != d_in:
            self.proj = nn.Linear(d_in, self.d_rnn, bias=False)
        if variant == "concat":
            self.d = self.d_rnn + d_in
            self.attention = AdditiveAttention(self.d, d_att)
            self.out = nn.Linear(self.d, n_classes)
        if variant == "mlm":
            self.decoder = nn.Linear(self.d_rnn, d_in)
            self.decoder_bias = nn.Parameter(torch.zeros(vocab_size))

    def project(self, X):
        """x_t in the BiLSTM's space (itself when the sizes agree)."""
        return self.proj(X) if hasattr(self, "proj") else X

    def rnn_states(self, X, mask):
        """The BiLSTM states h_t (B, n, d_rnn), zero at padding."""
        return super().encode(X, mask)

    def encode(self, X, mask):
        H = self.rnn_states(X, mask)
        m = mask.unsqueeze(-1).to(X.dtype)
        if self.variant == "concat":
            return torch.cat([H, X * m], dim=-1)
        if self.variant == "residual":
            return H + self.project(X) * m
        return H

    def mlm_logits(self, H):
        """Vocabulary logits (B, n, V) from states: E (W h + b) + c, E the embedding matrix."""
        return self.decoder(H) @ self.emb.weight.T + self.decoder_bias


def tying_term(H, X, mask) -> torch.Tensor:
    """mean over real tokens of ||h_t - x_t||^2 (H, X: (B, n, d); mask (B, n) bool)."""
    sq = ((H - X) ** 2).sum(-1)
    return sq[mask].mean()


def mask_tokens(ids, mask, prob: float, generator: torch.Generator):
    """(masked ids, chosen (B, n) bool): each real token chosen with ``prob`` (seeded); at
    least one per sentence; chosen ids replaced by 0 (``<pad>``, a zero embedding)."""
    u = torch.rand(ids.shape, generator=generator)
    chosen = (u < prob) & mask
    # a sentence with none chosen gets its most likely token chosen (its smallest u)
    first = u.masked_fill(~mask, 2.0).argmin(-1)
    none = ~chosen.any(-1)
    chosen[none, first[none]] = True
    return ids.masked_fill(chosen, 0), chosen


def mlm_term(clf: RegularisedLSTM, ids, mask, prob: float, generator: torch.Generator) -> torch.Tensor:
    """Cross-entropy of the masked words predicted from the states of the masked sentence."""
    masked, chosen = mask_tokens(ids, mask, prob, generator)
    H = clf.rnn_states(clf.embed(masked), mask)
    return nn.functional.cross_entropy(clf.mlm_logits(H[chosen]), ids[chosen])


def regulariser(clf: RegularisedLSTM, ids, mask, cfg: StayingTrueConfig, generator, states=None) -> torch.Tensor:
    """The variant's extra loss, already weighted (0 for base / concat / residual). ``states``:
    the (X, H) of this batch's forward pass, when the caller has them (tying reuses them)."""
    if clf.variant == "tying":
        X, H = states if states is not None else (clf.embed(ids), None)
        H = clf.rnn_states(X, mask) if H is None else H
        target = clf.project(X.detach() if cfg.tying_detach_embeddings else X)
        return cfg.tying_weight * tying_term(H, target, mask)
    if clf.variant == "mlm":
        return cfg.mlm_weight * mlm_term(clf, ids, mask, cfg.mlm_mask_prob, generator)
    return torch.zeros(())


def train_regularised(clf: RegularisedLSTM, xs, ys, cfg: StayingTrueConfig) -> dict:
    """Adam on cross-entropy + the variant's term, seeded shuffling and masking. Returns the
    last epoch's mean task loss and mean extra term."""
    g = torch.Generator().manual_seed(cfg.seed)
    opt = torch.optim.Adam(clf.parameters(), lr=cfg.lr)
    ys = torch.as_tensor(ys)
    clf.train()
    for epoch in range(cfg.epochs):
        perm = torch.randperm(len(xs), generator=g).tolist()
        task = extra = 0.0
        for start in range(0, len(perm), cfg.batch_size):
            idx = perm[start : start + cfg.batch_size]
            ids, mask = make_batch("lstm", [xs[i] for i in idx])
            logits, _ = clf(ids, mask)
            ce = nn.functional.cross_entropy(logits, ys[idx])
            reg = regulariser(clf, ids, mask, cfg, g)
            opt.zero_grad()
            (ce + reg).backward()
            opt.step()
            task += float(ce.detach()) * len(idx)
            extra += float(reg.detach()) * len(idx)
        log.info("%s epoch %d: task loss %.4f, extra %.4f", clf.variant, epoch + 1, task / len(xs), extra / len(xs))
    clf.eval()
    return {"final_task_loss": task / len(xs), "final_extra_term": extra / len(xs)}


def mean_norms(H, X, mask, X_in_h=None) -> dict:
    """Mean over real tokens of ||x_t||, ||h_t|| and ||h_t - x_t|| (L2; H, X: (B, n, d),
    mask (B, n) bool; ``X_in_h``: x_t in h's space for the difference, when sizes differ;
    nan where a variant has no such map)."""
    X_in_h = X if X_in_h is None else X_in_h
    return {
        "mean_x_norm": float(X.norm(dim=-1)[mask].mean()),
        "mean_h_norm": float(H.norm(dim=-1)[mask].mean()),
        "mean_h_minus_x_norm": float((H - X_in_h).norm(dim=-1)[mask].mean()) if H.shape == X_in_h.shape else np.nan,
    }


@torch.no_grad()
def state_norms(clf: RegularisedLSTM, xs, batch_size: int = 256) -> dict:
    """:func:`mean_norms` of the BiLSTM states h_t and the input embeddings x_t (the
    difference in h's space) over every real token of the id lists ``xs`` (token-weighted)."""
    sums, n = {}, 0
    for start in range(0, len(xs), batch_size):
        ids, mask = make_batch("lstm", xs[start : start + batch_size])
        X = clf.embed(ids)
        k = int(mask.sum())
        for key, v in mean_norms(clf.rnn_states(X, mask), X, mask, clf.project(X)).items():
            sums[key] = sums.get(key, 0.0) + v * k
        n += k
    return {key: v / n for key, v in sums.items()}


def build(variant: str, d_in: int, vocab_size: int, cfg: StayingTrueConfig) -> RegularisedLSTM:
    """A fresh, seeded model of ``variant`` (BiLSTM size ``cfg.hidden`` or the embedding's)."""
    torch.manual_seed(cfg.seed)
    return RegularisedLSTM(variant, d_in, cfg.hidden or d_in, cfg.d_att, vocab_size)


def weight_of(variant: str, cfg: StayingTrueConfig) -> float:
    return {"tying": cfg.tying_weight, "mlm": cfg.mlm_weight}.get(variant, 0.0)


def train_variants(variants, train, dev, cfg: StayingTrueConfig) -> tuple[dict, list[dict]]:
    """Every variant on the train sentences, with the ``attn_classifiers`` vocabulary and
    GloVe initialisation; dev accuracy. Returns (bundle, one row per variant); the bundle's
    ``dev_correct`` holds each variant's per-sentence correctness (bool tensor, dev order)."""
    train_words, train_y = [w for w, _ in train], [y for _, y in train]
    dev_y = np.array([y for _, y in dev])
    vocab = Vocab.from_sentences(train_words)
    vecs, without_glove = glove_init(vocab, cfg.seed)
    xs_train = [vocab.ids(w) for w in train_words]
    xs_dev = [vocab.ids(w) for w, _ in dev]
    bundle: dict = {"cfg": cfg.__dict__, "vocab": vocab.words, "d_in": vecs.shape[1], "models": {}, "dev_correct": {}}
    bundle["init_embeddings"] = torch.from_numpy(vecs)  # a fresh adversary starts from these
    rows = []
    init = torch.from_numpy(vecs)[torch.as_tensor([i for x in xs_dev for i in x], dtype=torch.long)]
    init_norm = float(init.norm(dim=-1).mean())  # mean ||x_t|| of the dev tokens before training
    for variant in variants:
        clf = build(variant, vecs.shape[1], len(vocab), cfg)
        clf.emb.weight.data.copy_(torch.from_numpy(vecs))
        t0 = time.perf_counter()
        losses = train_regularised(clf, xs_train, train_y, cfg)
        seconds = time.perf_counter() - t0
        correct = predict(clf, xs_dev) == dev_y
        acc = float(correct.mean())
        bundle["models"][variant] = clf.state_dict()
        bundle["dev_correct"][variant] = torch.from_numpy(correct)
        row = {"model": variant, "dev_accuracy": acc, "regularisation_weight": weight_of(variant, cfg)}
        row |= state_norms(clf, xs_dev) | {"init_x_norm": init_norm}
        row |= {"train_seconds": seconds, **losses, "n_train": len(train), "n_dev": len(dev), "epochs": cfg.epochs}
        rows.append(row | {"hidden": clf.d_rnn, "vocab": len(vocab), "vocab_without_glove": without_glove})
        log.info("%s: dev accuracy %.4f (%.1f s)", variant, acc, seconds)
    return bundle, rows


KEPT_COLUMNS = ["model", "accuracy", "base_accuracy", "difference"]


def kept_table(correct: dict, base: str = "base") -> pd.DataFrame:
    """One row per model other than ``base``: its dev accuracy, the base model's, and the
    difference (paired: the same dev sentences). ``correct``: model -> per-sentence correctness."""
    ref = np.asarray(correct[base], dtype=float).mean()
    rows = []
    for model, c in correct.items():
        if model != base:
            acc = np.asarray(c, dtype=float).mean()
            rows.append({"model": model, "accuracy": acc, "base_accuracy": ref, "difference": acc - ref})
    return pd.DataFrame(rows, columns=KEPT_COLUMNS)


def kept_replicates(correct: dict, resamples: int, seed: int, base: str = "base") -> pd.DataFrame:
    """:func:`kept_table` on ``resamples`` seeded resamples of the dev sentences (the same resample
    for every model: paired), column ``replicate``, and the sentences drawn (``resampled_units``)."""
    models = list(correct)
    c = np.stack([np.asarray(correct[m], dtype=float) for m in models])  # (models, sentences)
    w = unit_weights(c.shape[1], resamples, seed)
    acc = (w @ c.T) / c.shape[1]  # (resamples, models)
    ref = acc[:, models.index(base)]
    parts = [
        pd.DataFrame(
            {
                "model": m,
                "accuracy": acc[:, k],
                "base_accuracy": ref,
                "difference": acc[:, k] - ref,
                "replicate": np.arange(resamples),
            }
        )
        for k, m in enumerate(models)
        if m != base
    ]
    return with_resampled(pd.concat(parts, ignore_index=True)[[*KEPT_COLUMNS, "replicate"]], c.shape[1])


def load_variants(bundle: dict) -> tuple[Vocab, dict[str, RegularisedLSTM]]:
    """(vocabulary, variant -> trained model in eval mode) from :func:`train_variants`' bundle."""
    cfg = StayingTrueConfig(**bundle["cfg"])
    vocab = Vocab(bundle["vocab"][2:])
    models = {}
    for variant, state in bundle["models"].items():
        clf = build(variant, bundle["d_in"], len(vocab), cfg)
        clf.load_state_dict(state)
        models[variant] = clf.eval()
    return vocab, models
