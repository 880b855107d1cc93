"""Training and scoring the dependency probes (Clark et al. 2019 sec. 5, Table 3).

Training is full-batch per group of sentences: padded to the longest sentence of the group,
candidates masked, cross-entropy over candidates, Adam, seeded; no Python loop over words or
word pairs. UAS counts dependents whose gold POS is not punctuation. The right-branching
baseline: the head of word j is word j + 1, the last word's head is the root.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import torch

from analysis.clark.probe_data import Sentence
from analysis.clark.probe_models import AttnProbe, MLPProbe

log = logging.getLogger(__name__)


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


def evaluate(model, data: list[dict]) -> dict:
    """UAS (punctuation excluded) and mean loss on prepared batches (``length_batches``)."""
    model.eval()
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
    epochs: int,
    lr: float,
    batch_size: int,
    seed: int = 0,
    name: str = "probe",
    log=log,
) -> tuple[dict, list[dict]]:
    """Adam on the cross-entropy over candidate heads (batches of similar-length sentences,
    visited in a seeded random order each epoch); returns (dev evaluation, curve)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
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


def run_probe(name: str, model, train_sents, dev_sents, epochs: int, lr: float, batch_size: int, seed: int, log=log):
    """Train ``model`` from the torch seed ``seed``: (row of the probes table, training curve)."""
    torch.manual_seed(seed)
    res, curve = train(
        model, train_sents, dev_sents, epochs=epochs, lr=lr, batch_size=batch_size, seed=seed, name=name, log=log
    )
    return {"probe": name, **res}, curve


def train_probes(
    sents: dict[str, list[Sentence]],
    dim: int,
    epochs: int,
    lr: dict,
    batch_size: int,
    mlp_hidden: int,
    seed: int,
    log=log,
) -> tuple[list[dict], list[dict]]:
    """The probes on the trained model's maps, in the order of Clark's Table 3: attention-only,
    attention-and-words (word vectors of size ``dim``), right-branching, the word-vectors MLP;
    ``lr``: probe name -> learning rate. Returns (rows of the probes table, training curves)."""
    n_heads = sents["train"][0].attn.shape[0]
    results, curves = [], []

    def fit(name, model):  # the probe is built before the seed is set, as it always was
        row, curve = run_probe(
            name, model, sents["train"], sents["dev"], epochs, float(lr[name]), batch_size, seed, log
        )
        results.append(row)
        curves.extend(curve)

    fit("attention-only", AttnProbe(n_heads))
    fit("attention-and-words", AttnProbe(n_heads, dim=dim))
    results.append({"probe": "right-branching", **right_branching(sents["dev"])})
    fit("word-vectors MLP + distance", MLPProbe(dim, hidden=mlp_hidden))
    return results, curves


def probes_table(results: list[dict], model: str, n_train: int, n_dev: int, vectors: str) -> pd.DataFrame:
    """The scores of the probes (rule probes_train): one row per probe, the data behind them beside."""
    table = pd.DataFrame(results)
    table.insert(0, "model", model)
    table["train_sentences"] = n_train
    table["dev_sentences"] = n_dev
    table["vectors"] = vectors
    return table


def with_paper_uas(table: pd.DataFrame, paper_uas: dict) -> pd.DataFrame:
    """The probes table with the paper's UAS beside each probe (NaN where it has none), placed
    before the data columns (rule probes, which draws them: a new reference number retrains nothing)."""
    out = table.copy()
    out.insert(out.columns.get_loc("train_sentences"), "paper_uas", [paper_uas.get(p, np.nan) for p in out.probe])
    return out
