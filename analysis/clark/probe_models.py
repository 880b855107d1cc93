"""The dependency probes of Clark et al. 2019 sec. 5 (Table 3): attention-only and
attention-and-words (``AttnProbe``), and the word-vectors MLP baseline (``MLPProbe``).

Each scores, for every dependent j, every candidate head i (the root and every other word):

- attention-only:  s(j, i) = sum_k w_k A_k[j, i] + u_k A_k[i, j]
- attention-and-words:  w = W (v_i + v_j), u = U (v_i + v_j) with ``+`` = concatenation of
  static word vectors (GloVe; a learned vector for the root, zeros for out-of-vocabulary
  words, the rate reported), so s(j, i) = sum_k w_k(i, j) A_k[j, i] + u_k(i, j) A_k[i, j]
- MLP baseline (no attention): s(j, i) = c . relu(M [v_i ; v_j] + E[d(i, j)] + b) with d the
  signed distance bucket.
"""

from __future__ import annotations

import torch


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
