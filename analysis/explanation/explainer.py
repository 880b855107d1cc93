"""One dev sentence as the attention tests see it (:class:`Instance`), and the re-runs of a
trained attention classifier the tests need (:class:`Explainer`).

An :class:`Instance` holds the token representations ``H`` (n, d), the attention ``a`` (n,),
the output distribution and the decision; :class:`Explainer` re-runs the output layer with
other attention weights and gives the gradients / leave-one-out importances.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from analysis.explanation.classifiers import WORD_ENCODERS, AttnClassifier, Vocab
from analysis.explanation.divergences import tvd
from analysis.explanation.frozen_transformer import FrozenTransformer


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


def instance_fields(inst: Instance) -> dict:
    """The columns that identify an instance in every per-instance table."""
    return {
        "id": inst.id,
        "label": inst.label,
        "prediction": inst.pred,
        "n_items": inst.n,
        "max_attention": float(inst.a.max()),
    }


def renormalise(a: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """a * keep / sum(a * keep) along the last axis (a: (n,) or (B, n); keep broadcastable)."""
    w = a * keep
    return w / w.sum(-1, keepdim=True).clamp_min(1e-30)


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
        return tvd(p, inst.probs[None])
