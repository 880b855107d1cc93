"""``transformer_finetuned``: the ``transformer`` attention classifier (additive attention over
the encoder's last-layer word-piece states, then linear) with the encoder fine-tuned jointly
instead of frozen (rule ``attn_classifiers``, when listed in ``explanation.encoders``).

CPU-sized by ``explanation.finetuned_transformer``: a seeded subset of the training sentences,
few epochs, AdamW (the encoder at its own small learning rate, the attention classifier at
``explanation.lr``). After training the encoder is frozen again and wrapped in a
:class:`~analysis.explanation.frozen_transformer.FrozenTransformer`, so the explanation tests
run on it exactly as on the frozen one (gradients and leave-one-out re-run the fine-tuned
encoder).
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from analysis.explanation.classifiers import AttnClassifier, TrainConfig, make_batch, predict
from analysis.explanation.frozen_transformer import FrozenTransformer

log = logging.getLogger(__name__)

NAME = "transformer_finetuned"


@dataclass
class FinetuneConfig:
    n_train: int = 1000
    epochs: int = 1
    lr: float = 2e-5
    batch_size: int = 16


def _item_states(model, tf: FrozenTransformer, enc_batch):
    """Differentiable item states (one (n_i, d) tensor per sentence) of a batch."""
    ids, att = tf.batch([e[0] for e in enc_batch])
    H = model(input_ids=ids, attention_mask=att).last_hidden_state.float().cpu()
    return [H[j, e[1]] for j, e in enumerate(enc_batch)]


def finetune(tf: FrozenTransformer, train_words, train_y, cfg: TrainConfig, ft: FinetuneConfig):
    """(fine-tuned encoder in eval mode, trained attention classifier, final epoch loss)."""
    torch.manual_seed(cfg.seed)
    model = copy.deepcopy(tf.model)
    for p in model.parameters():
        p.requires_grad_(True)
    model.train()
    rng = np.random.default_rng(cfg.seed)
    pick = np.sort(rng.permutation(len(train_words))[: ft.n_train])
    enc = [tf.encode_ids(train_words[i]) for i in pick]
    ys = torch.as_tensor([train_y[i] for i in pick])
    d = model.config.hidden_size
    clf = AttnClassifier(NAME, d, cfg.hidden, cfg.d_att)
    opt = torch.optim.AdamW(
        [{"params": model.parameters(), "lr": ft.lr}, {"params": clf.parameters(), "lr": cfg.lr}], weight_decay=0.0
    )
    g = torch.Generator().manual_seed(cfg.seed)
    for epoch in range(ft.epochs):
        order = torch.randperm(len(enc), generator=g).tolist()
        total = 0.0
        for start in range(0, len(order), ft.batch_size):
            idx = order[start : start + ft.batch_size]
            H, mask = make_batch(NAME, _item_states(model, tf, [enc[i] for i in idx]))
            loss = nn.functional.cross_entropy(clf(H, mask)[0], ys[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        log.info("%s epoch %d: loss %.4f", NAME, epoch + 1, total / len(enc))
    return model.eval(), clf.eval(), total / len(enc)


def train_finetuned_classifier(tf, train_words, train_y, dev_words, dev_y, cfg: TrainConfig, ft: FinetuneConfig, info):
    """Returns (checkpoint entry with the encoder's state, accuracy row)."""
    model, clf, loss = finetune(tf, train_words, train_y, cfg, ft)
    tuned = FrozenTransformer(model, tf.tok, tf.max_len)
    dv = tuned.states(dev_words)
    acc = float((predict(clf, [h for h, _ in dv]) == np.asarray(dev_y)).mean())
    row = {
        "encoder": NAME,
        "tokens": f"word pieces (encoder fine-tuned on {min(ft.n_train, len(train_words))} sentences)",
        "dev_accuracy": acc,
        "final_train_loss": loss,
        **info,
    }
    # CPU copies: a bundle written on a GPU node then loads anywhere (analysis.core.device.load_bundle)
    encoder_state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    entry = {"d_in": model.config.hidden_size, "state": clf.state_dict(), "encoder_state": encoder_state}
    return entry, row


def tuned_transformer(transformer: FrozenTransformer, entry: dict) -> FrozenTransformer:
    """The frozen transformer with the fine-tuned encoder weights of a checkpoint entry (copied
    onto the transformer's device, wherever the entry's tensors are)."""
    model = copy.deepcopy(transformer.model)
    model.load_state_dict(entry["encoder_state"])
    return FrozenTransformer(model.eval(), transformer.tok, transformer.max_len)
