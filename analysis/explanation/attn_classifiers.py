"""Training of the attention classifiers on SST-2 (rule ``attn_classifiers``): one function per
training, :func:`train_all` runs them in order and gathers the checkpoint bundle.

- :func:`train_word_classifiers`: ``none``/``cnn``/``lstm``/``gru``
  (:mod:`analysis.explanation.classifiers`) on SST-2's words, embeddings initialised from GloVe
  6B 50-d (:mod:`analysis.shared.vectors`) and fine-tuned; train words without a vector start
  random (seeded, counted); dev words outside the train vocabulary map to ``<unk>`` (counted).
- :func:`train_transformer_classifier`: the ``transformer`` classifier on the frozen encoder's
  last-layer word-piece states.
- :func:`train_cls_probe`: ``cls_probe``, a linear read-out of the frozen transformer's
  last-layer [CLS]-like state (the token the tokenizer marks as such): the classifier whose
  decision runs through the transformer's *own* attention, used by the ``erasure_cls`` rule.
"""

from __future__ import annotations

import logging

import numpy as np
import torch
from torch import nn

from analysis.explanation.classifiers import WORD_ENCODERS, AttnClassifier, TrainConfig, Vocab, make_batch, predict
from analysis.explanation.frozen_transformer import FrozenTransformer
from analysis.shared.vectors import PACKAGE, load_vectors

log = logging.getLogger(__name__)


def train_classifier(clf: AttnClassifier, xs, ys, cfg: TrainConfig) -> list[float]:
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


# ----------------------------------------------------------------------------- the trainings


def glove_init(vocab: Vocab, seed: int) -> tuple[np.ndarray, int]:
    """Initial embeddings of ``vocab``: GloVe rows; words without a vector drawn at random
    (seeded, GloVe's std), ``<pad>`` zero. Returns (vectors, number of words without GloVe)."""
    vecs, found = load_vectors(PACKAGE).exact(vocab.words)
    rng = np.random.default_rng(seed)
    missing = ~found
    missing[0] = False
    vecs[missing] = rng.normal(0, vecs[found].std(), size=(missing.sum(), vecs.shape[1])).astype(np.float32)
    vecs[0] = 0
    return vecs, int(missing.sum())


def train_word_classifiers(encoders, train_words, train_y, dev_words, dev_y, cfg: TrainConfig, base: dict):
    """The word-encoder classifiers of ``encoders`` on a vocabulary of the train words.
    Returns (vocabulary words, encoder -> checkpoint entry, accuracy rows)."""
    vocab = Vocab.from_sentences(train_words)
    vecs, without_glove = glove_init(vocab, cfg.seed)
    dev_counts: dict = {}
    xs_train = [vocab.ids(w) for w in train_words]
    xs_dev = [vocab.ids(w, dev_counts) for w in dev_words]
    glove_info = {
        "vocab": len(vocab),
        "vocab_without_glove": without_glove,
        "dev_unk_tokens": dev_counts.get("unk_tokens", 0),
        "dev_tokens": dev_counts.get("tokens", 0),
    }
    log.info("vocabulary: %s", glove_info)
    entries, rows = {}, []
    for enc in encoders:
        torch.manual_seed(cfg.seed)
        clf = AttnClassifier(enc, vecs.shape[1], cfg.hidden, cfg.d_att, vocab_size=len(vocab))
        clf.emb.weight.data.copy_(torch.from_numpy(vecs))
        losses = train_classifier(clf, xs_train, train_y, cfg)
        acc = float((predict(clf, xs_dev) == dev_y).mean())
        entries[enc] = {"d_in": vecs.shape[1], "state": clf.state_dict()}
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
    return vocab.words, entries, rows


def train_transformer_classifier(train_states, dev_states, train_y, dev_y, cfg: TrainConfig, info: dict):
    """The ``transformer`` classifier on the frozen encoder's word-piece states
    (:meth:`FrozenTransformer.states`). Returns (checkpoint entry, accuracy row)."""
    torch.manual_seed(cfg.seed)
    d = train_states[0][0].shape[1]
    clf = AttnClassifier("transformer", d, cfg.hidden, cfg.d_att)
    losses = train_classifier(clf, [h for h, _ in train_states], train_y, cfg)
    acc = float((predict(clf, [h for h, _ in dev_states]) == dev_y).mean())
    row = {
        "encoder": "transformer",
        "tokens": "word pieces (frozen encoder)",
        "dev_accuracy": acc,
        "final_train_loss": losses[-1],
        **info,
    }
    return {"d_in": d, "state": clf.state_dict()}, row


def train_cls_probe(train_states, dev_states, train_y, dev_y, cfg: TrainConfig, info: dict):
    """``cls_probe``: a linear read-out of the frozen encoder's [CLS]-like states. Returns
    (probe state dict, accuracy row)."""
    probe = train_probe(torch.stack([c for _, c in train_states]), train_y, cfg)
    with torch.no_grad():
        acc = float((probe(torch.stack([c for _, c in dev_states])).argmax(-1).numpy() == dev_y).mean())
    row = {
        "encoder": "cls_probe",
        "tokens": "word pieces (frozen encoder, [CLS] read-out)",
        "dev_accuracy": acc,
        "final_train_loss": float("nan"),
        **info,
    }
    return probe.state_dict(), row


def train_all(
    train,
    dev,
    encoders,
    cfg: TrainConfig,
    transformer: FrozenTransformer | None = None,
    batch_size_states: int = 64,
    finetune_cfg=None,
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
        bundle["vocab"], entries, word_rows = train_word_classifiers(
            word_kinds, train_words, train_y, dev_words, dev_y, cfg, base
        )
        bundle["encoders"].update(entries)
        rows += word_rows
    if transformer is not None:
        counts: dict = {}
        tr = transformer.states(train_words, batch_size_states, counts)
        dv = transformer.states(dev_words, batch_size_states, counts)
        info = {**base, "truncated": counts.get("truncated", 0)}
        if "transformer" in encoders:
            bundle["encoders"]["transformer"], row = train_transformer_classifier(tr, dv, train_y, dev_y, cfg, info)
            rows.append(row)
        if "transformer_finetuned" in encoders:  # the encoder fine-tuned too (finetuned_transformer.py)
            from analysis.explanation.finetuned_transformer import FinetuneConfig, train_finetuned_classifier

            bundle["encoders"]["transformer_finetuned"], row = train_finetuned_classifier(
                transformer, train_words, train_y, dev_words, dev_y, cfg, finetune_cfg or FinetuneConfig(), info
            )
            rows.append(row)
        bundle["cls_probe"], row = train_cls_probe(tr, dv, train_y, dev_y, cfg, info)
        rows.append(row)
    for r in rows:
        log.info("%s: dev accuracy %.4f", r["encoder"], r["dev_accuracy"])
    return bundle, rows
