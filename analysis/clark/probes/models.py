"""The dependency probes of Clark et al. 2019 sec. 5 (Table 3): attention-only and
attention-and-words (``AttnProbe``), and the word-vectors MLP baseline (``MLPProbe``).

Each scores, for every dependent j, every candidate head i (the root and every other word):

- attention-only:  s(j, i) = sum_k w_k A_k[j, i] + u_k A_k[i, j]; for the root, as in the
  authors' probe, A_k[j, root] = c A_k[j, CLS] + e A_k[j, SEP] and A_k[root, j] = c A_k[CLS, j]
  + e A_k[SEP, j] with two learned weights c, e shared by all heads (``root_mix``)
- attention-and-words:  w = W (v_i + v_j), u = U (v_i + v_j) with ``+`` = concatenation of
  static word vectors (GloVe; a learned vector for the root, zeros for out-of-vocabulary
  words, the rate reported), so s(j, i) = sum_k w_k(i, j) A_k[j, i] + u_k(i, j) A_k[i, j]
  (the root's attention as above)
- MLP baseline (no attention), as the authors': s(j, i) = c . tanh(M [v_i ; v_j] + D f(i, j) + b),
  one hidden layer (256 units by default, as theirs) on both words' vectors and the distance: by
  default f = the authors' 8 distance features (``authors_distance_features``; the root's word
  vector zeros); ``clark_probes.mlp_distance: buckets`` instead adds a learned vector per signed
  offset -10..10 (the root its own, and a learned root vector).

Which vector v_i scores candidate i (``clark_probes.word_alignment``): ``paper`` (the default) the
candidate's own, as the paper defines both probes; ``notebook`` as the authors' notebook runs them,
whose word-pair tensor puts the root's zero vector after the last word while the attention, the
distance features and the gold heads put the root first, so candidate i gets the vector of word
i + 1 (the root the first word's, the last word zeros; ``candidate_vectors``). The dependent's own
vector is aligned either way.
"""

from __future__ import annotations

import torch

WORD_ALIGNMENTS = ("paper", "notebook")


def check_alignment(alignment: str) -> str:
    if alignment not in WORD_ALIGNMENTS:
        raise ValueError(f"clark_probes.word_alignment: {alignment!r} is neither paper nor notebook")
    return alignment


def candidate_vectors(v: torch.Tensor, alignment: str) -> torch.Tensor:
    """The vector that scores each candidate unit (B, W1, d) of the units' vectors ``v`` (0 = the
    root, i = word i, zeros past a sentence's end): ``paper`` v itself; ``notebook`` v shifted one
    unit left, zeros last (candidate i gets unit i + 1's vector: the authors' notebook)."""
    if check_alignment(alignment) == "paper":
        return v
    return torch.cat([v[:, 1:], torch.zeros_like(v[:, :1])], dim=1)


def root_attention(batch, root_mix: torch.Tensor) -> torch.Tensor:
    """The features of candidate 0, the root, (B, W1, 2K): ``root_mix[0]`` x the [CLS] features
    + ``root_mix[1]`` x the [SEP] features (attention to and from each)."""
    return root_mix[0] * batch["feats"][:, :, 0] + root_mix[1] * batch["sep"]


def with_root_attention(batch, root_mix: torch.Tensor) -> torch.Tensor:
    """The features of a batch (B, W1, W1, 2K), candidate 0 replaced by ``root_attention``."""
    f = batch["feats"].clone()
    f[:, :, 0] = root_attention(batch, root_mix)
    return f


class AttnProbe(torch.nn.Module):
    """Attention-only (``dim=None``) or attention-and-words (``dim`` = vector size) probe."""

    needs_attn, needs_vec = True, False

    def __init__(self, n_heads: int, dim: int | None = None, word_alignment: str = "paper"):
        super().__init__()
        self.words, self.alignment = dim is not None, check_alignment(word_alignment)
        # weights of [CLS] and [SEP] in the root's attention (the authors' ROOT_start, ROOT_end)
        self.root_mix = torch.nn.Parameter(torch.ones(2))
        if self.words:
            self.needs_vec = True
            if word_alignment == "paper":
                self.root = torch.nn.Parameter(torch.zeros(dim))
            else:  # the root is scored with the first word's vector: its own never enters a score
                self.register_buffer("root", torch.zeros(dim))
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
        # feats (B, W1, W1, 2K): [b, j, i] = (a_k(j -> i), a_k(i -> j)); candidate 0 scored apart
        f, root = batch["feats"], root_attention(batch, self.root_mix)
        if not self.words:
            wu = torch.cat([self.w, self.u])
            return torch.cat([(root @ wu)[:, :, None], (f @ wu)[:, :, 1:]], dim=2)
        v = batch["vec"].clone()
        v[:, 0] = self.root
        vc = candidate_vectors(v, self.alignment)
        cand = torch.cat([self.w_cand(vc), self.u_cand(vc)], -1)  # (B, W1, 2K): from v_i
        dep = torch.cat([self.w_dep(v), self.u_dep(v)], -1)  # from v_j
        words = (f * (cand[:, None, :, :] + dep[:, :, None, :])).sum(-1)
        return torch.cat([(root * (cand[:, None, 0] + dep)).sum(-1)[:, :, None], words[:, :, 1:]], dim=2)


def authors_distance_features(n_words: torch.Tensor, units: int) -> torch.Tensor:
    """Clark et al.'s distance features (their Syntax_Analysis notebook, ``make_distance_features``)
    for dependent j and candidate i (units: 0 = the root, j = word j), (B, units, units, 8): how far
    the candidate is ahead, and behind, over the sentence's length (``n_words``, per row); whether it
    is 0, -1, +1, -2, +2 words away; whether it is the root (the other seven 0 there)."""
    idx = torch.arange(units, device=n_words.device)
    off = (idx[None, :] - idx[:, None]).to(torch.float32)  # [j, i]: i - j
    n = n_words.clamp(min=1).to(torch.float32)[:, None, None]
    feats = [off.clamp(min=0) / n, (-off).clamp(min=0) / n]
    feats += [(off == k).to(torch.float32).expand_as(feats[0]) for k in (0, -1, 1, -2, 2)]
    f = torch.stack(feats, -1)
    f[:, :, 0] = 0.0
    root = torch.zeros_like(f[..., :1])
    root[:, :, 0] = 1.0
    return torch.cat([f, root], -1)


class MLPProbe(torch.nn.Module):
    """One tanh hidden layer on (v_i ; v_j) plus the distance between the two words: ``distance``
    ``authors`` (Clark et al.'s 8 features, :func:`authors_distance_features`, linear into the
    hidden layer; the root's word vector all zeros, as theirs) or ``buckets`` (a learned vector per
    signed offset -10..10, the root its own bucket and a learned vector); ``word_alignment`` as
    :func:`candidate_vectors`."""

    needs_attn, needs_vec = False, True

    def __init__(
        self, dim: int, hidden: int = 256, max_dist: int = 10, distance: str = "authors", word_alignment: str = "paper"
    ):
        super().__init__()
        self.alignment = check_alignment(word_alignment)
        if distance not in ("authors", "buckets"):
            raise ValueError(f"clark_probes.mlp_distance: {distance!r} is neither authors nor buckets")
        self.max_dist, self.distance = max_dist, distance
        if distance == "buckets":
            self.root = torch.nn.Parameter(torch.zeros(dim))
        else:  # the authors' dummy root: zeros, nothing to learn
            self.register_buffer("root", torch.zeros(dim))
        self.cand = torch.nn.Linear(dim, hidden)
        self.dep = torch.nn.Linear(dim, hidden, bias=False)
        if distance == "buckets":
            self.dist = torch.nn.Embedding(2 * max_dist + 2, hidden)  # last bucket: the root
        else:
            self.dist = torch.nn.Linear(8, hidden, bias=False)
        self.out = torch.nn.Linear(hidden, 1)

    def forward(self, batch) -> torch.Tensor:
        v = batch["vec"].clone()
        v[:, 0] = self.root
        units = v.shape[1]
        if self.distance == "authors":
            dist = self.dist(authors_distance_features(batch["dep"].sum(-1), units))  # (B, j, i, hidden)
        else:
            idx = torch.arange(units, device=v.device)  # units: 0 = the root, j = word j
            d = (idx[None, :] - idx[:, None]).clamp(-self.max_dist, self.max_dist) + self.max_dist  # [j, i]: i - j
            d[:, 0] = 2 * self.max_dist + 1  # candidate 0 is the root
            dist = self.dist(d)  # positions only: one (W1, W1, hidden) table for the whole batch
        h = (
            self.cand(candidate_vectors(v, self.alignment))[:, None, :, :] + self.dep(v)[:, :, None, :] + dist
        )  # (B, j, i, hidden)
        return self.out(torch.tanh(h)).squeeze(-1)
