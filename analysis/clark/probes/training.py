"""Training and scoring the dependency probes (Clark et al. 2019 sec. 5, Table 3).

Training is full-batch per group of sentences: padded to the longest sentence of the group,
candidates masked, cross-entropy over candidates, Adam, seeded; no Python loop over words or
word pairs. The learning rate and the number of epochs are chosen on a seeded held-out part of
the TRAIN sentences (``heldout_split``): every learning rate of a small grid is trained for up to
``epochs`` epochs on the rest, and the (learning rate, epoch) with the best held-out UAS is
kept; the dev set is scored once, with that probe (it never chooses anything). UAS counts
dependents whose gold POS is not punctuation. The right-branching baseline: the head of word j
is word j + 1, the last word's head is the root.
"""

from __future__ import annotations

import copy
import logging

import numpy as np
import torch

from analysis.clark.probes.control_task import behaviours, control_heads, control_name
from analysis.clark.probes.data import Sentence
from analysis.clark.probes.models import AttnProbe, MLPProbe
from analysis.clark.probes.settings import ProbeSettings

log = logging.getLogger(__name__)


def heldout_split(sentences: list[Sentence], fraction: float, seed: int) -> tuple[list, list]:
    """(fit, held-out): a seeded ``fraction`` of ``sentences`` held out (at least one), drawn from
    their sorted ids (the same sentences whatever their order, e.g. for the random-init model's),
    both parts kept in the given order."""
    if not 0 < fraction < 1:
        raise ValueError(f"held-out fraction {fraction} not in (0, 1)")
    if len(sentences) < 2:
        raise ValueError("at least 2 training sentences are needed to hold some out")
    n_held = min(len(sentences) - 1, max(1, int(round(fraction * len(sentences)))))
    ids = sorted(s.id for s in sentences)
    held = {ids[i] for i in np.random.default_rng(seed).permutation(len(ids))[:n_held]}
    return [s for s in sentences if s.id not in held], [s for s in sentences if s.id in held]


def _sentence_arrays(s: Sentence, need_attn: bool):
    """The features of one sentence: (feats (n1, n1, 2K), sep (n1, 2K)) with n1 = W + 1 units
    ([CLS] and the words): feats[j, i] = (a_k(j -> i), a_k(i -> j)), sep[j] = (a_k(j -> [SEP]),
    a_k([SEP] -> j))."""
    if not need_attn:
        return None, None
    a, n1 = s.attn, s.n + 1  # a: (K, W + 2, W + 2), unit W + 1 = [SEP]
    w = a[:, :n1, :n1]
    feats = np.concatenate([w.transpose(1, 2, 0), w.transpose(2, 1, 0)], axis=-1)
    sep = np.concatenate([a[:, :n1, n1].T, a[:, n1, :n1].T], axis=-1)
    return feats, sep


def batches(sentences: list[Sentence], batch_size: int, need_attn: bool, need_vec: bool, order=None, device="cpu"):
    """Padded tensors for groups of sentences: feats (B, W1, W1, 2K) float32 with
    feats[b, j, i] = (a_k(j -> i) for every head k, then a_k(i -> j)), candidate 0 = [CLS];
    sep (B, W1, 2K) = (a_k(j -> [SEP]), a_k([SEP] -> j)) (the root's second stand-in); vec
    (B, W1, d), gold (B, W1), dep mask (B, W1: real words), cand mask (B, W1, W1), scored (B, W1)."""
    order = np.arange(len(sentences)) if order is None else order
    for start in range(0, len(order), batch_size):
        group = [sentences[i] for i in order[start : start + batch_size]]
        W1, B = max(s.n for s in group) + 1, len(group)
        out = {
            "gold": np.zeros((B, W1), dtype=np.int64),
            "dep": np.zeros((B, W1), dtype=bool),
            "scored": np.zeros((B, W1), dtype=bool),
            "cand": np.zeros((B, W1, W1), dtype=bool),
        }
        if need_attn:
            K2 = 2 * group[0].attn.shape[0]
            out["feats"] = np.zeros((B, W1, W1, K2), dtype=np.float32)
            out["sep"] = np.zeros((B, W1, K2), dtype=np.float32)
        if need_vec:
            out["vec"] = np.zeros((B, W1, group[0].extra["vec"].shape[1]), dtype=np.float32)
        out["sentence"] = np.asarray(order[start : start + batch_size])  # each row's index in ``sentences``
        for b, s in enumerate(group):
            n1 = s.n + 1
            out["gold"][b, 1:n1] = s.heads
            out["dep"][b, 1:n1] = True
            out["scored"][b, 1:n1] = s.scored
            out["cand"][b, 1:n1, :n1] = True
            feats, sep = _sentence_arrays(s, need_attn)
            if need_attn:
                out["feats"][b, :n1, :n1] = feats
                out["sep"][b, :n1] = sep
            if need_vec:
                out["vec"][b, 1:n1] = s.extra["vec"]
        out["cand"][:, np.arange(W1), np.arange(W1)] = False  # a word is not its own head
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


def sentence_scores(model, data: list[dict], n_sentences: int) -> np.ndarray:
    """(n_sentences, 2): correct and scored words of every sentence (index as in the batches'
    ``sentence``), the units the scorecard's intervals resample."""
    out = np.zeros((n_sentences, 2), dtype=np.int64)
    model.eval()
    with torch.no_grad():
        for batch in data:
            ok = (masked_scores(model(batch), batch["cand"]).argmax(-1) == batch["gold"]) & batch["scored"]
            idx = batch["sentence"].cpu().numpy()
            out[idx, 0] = ok.sum(-1).cpu().numpy()
            out[idx, 1] = batch["scored"].sum(-1).cpu().numpy()
    return out


def length_batches(sentences, batch_size: int, need_attn: bool, need_vec: bool) -> list[dict]:
    """Padded batches of sentences of similar length (sorted by length), built once."""
    order = np.argsort([s.n for s in sentences], kind="stable")
    return list(batches(sentences, batch_size, need_attn, need_vec, order=order))


def split_batches(sents: dict[str, list[Sentence]], heldout_fraction: float, seed: int, batch_size: int):
    """The padded batches of the probes' data, built once: ``fit`` and ``heldout`` (a seeded
    ``heldout_fraction`` of the train sentences, which chooses the learning rate and epochs) and
    ``dev`` (scored once per probe), each with every feature the sentences have."""
    fit, held = heldout_split(sents["train"], heldout_fraction, seed)
    first = sents["train"][0]
    need = (first.attn is not None, "vec" in first.extra)
    data = {name: length_batches(ss, batch_size, *need) for name, ss in (("fit", fit), ("heldout", held))}
    data["dev"] = length_batches(sents["dev"], batch_size, *need)
    data["sizes"] = {"fit": len(fit), "heldout": len(held), "dev": len(sents["dev"])}
    return data


def relabelled(data: dict, sents: dict, heads_of, heldout_fraction: float, seed: int) -> dict:
    """``data`` (:func:`split_batches` of ``sents``) with every batch's gold heads replaced by
    ``heads_of(sentence)`` (e.g. the control task's): the padded features are shared, not built again."""
    fit, held = heldout_split(sents["train"], heldout_fraction, seed)
    out = {"sizes": data["sizes"]}
    for name, part in (("fit", fit), ("heldout", held), ("dev", sents["dev"])):
        out[name] = []
        for batch in data[name]:
            gold = torch.zeros_like(batch["gold"])
            for row, i in enumerate(batch["sentence"].tolist()):
                heads = heads_of(part[i])
                gold[row, 1 : len(heads) + 1] = torch.as_tensor(heads)
            out[name].append({**batch, "gold": gold})
    return out


def fit_epochs(model, fit: list[dict], heldout: list[dict], epochs: int, lr: float, seed: int):
    """Adam on the cross-entropy over candidate heads (``fit`` batches in a seeded random order
    each epoch), the held-out evaluation after every epoch. Returns (curve rows, the state
    after the best epoch: held-out UAS, then lower held-out loss)."""
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    curve, best, best_state = [], None, None
    for epoch in range(1, epochs + 1):
        model.train()
        tot = n_dep = 0.0
        for b in rng.permutation(len(fit)):
            loss, _, _ = loss_and_correct(model, fit[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            nd = int(fit[b]["dep"].sum())
            tot, n_dep = tot + loss.item() * nd, n_dep + nd
        held = evaluate(model, heldout)
        train_loss = tot / max(n_dep, 1)  # per dependent, as the held-out loss
        curve.append(
            {
                "lr": lr,
                "epoch": epoch,
                "train_loss": train_loss,
                "heldout_loss": held["loss"],
                "heldout_uas": held["uas"],
            }
        )
        if best is None or (held["uas"], -held["loss"]) > best:
            best, best_state = (held["uas"], -held["loss"]), copy.deepcopy(model.state_dict())
    return curve, best_state


def _key(row: dict) -> tuple:
    return row["heldout_uas"], -row["heldout_loss"]


def select_and_train(name: str, make_probe, fit: list[dict], heldout: list[dict], lrs, epochs: int, seed: int, log=log):
    """Train ``make_probe()`` (built after seeding torch with ``seed``) at every learning rate of
    ``lrs`` for up to ``epochs`` epochs on the ``fit`` batches; keep the (lr, epoch) of the best
    held-out UAS (then lower held-out loss, then the first). Returns (the chosen probe, what was
    chosen: lr, epochs, held-out UAS; every curve row, the chosen one marked)."""
    best, curves = None, []
    for lr in lrs:
        torch.manual_seed(seed)
        model = make_probe()
        curve, state = fit_epochs(model, fit, heldout, epochs=epochs, lr=float(lr), seed=seed)
        for r in curve:
            log.info("%s lr %g epoch %d: train loss %.4f, held-out loss %.4f, UAS %.4f", name, *r.values())
            curves.append({"probe": name, **r})
        top = max(curve, key=_key)
        if best is None or _key(top) > _key(best[0]):
            model.load_state_dict(state)
            best = top, model
    top, model = best
    for r in curves:
        r["chosen"] = r["lr"] == top["lr"] and r["epoch"] == top["epoch"]
    log.info("%s: chose lr %g, %d epochs (held-out UAS %.4f)", name, top["lr"], top["epoch"], top["heldout_uas"])
    return model, {"lr": top["lr"], "epochs": top["epoch"], "heldout_uas": top["heldout_uas"]}, curves


def run_probe(name: str, make_probe, data: dict, lrs, epochs: int, seed: int, log=log):
    """Choose the learning rate and epochs of a probe on the held-out train sentences, then score
    the chosen probe on dev once: (row of the probes table, curve rows, per dev sentence: correct
    and scored words)."""
    model, chosen, curves = select_and_train(name, make_probe, data["fit"], data["heldout"], lrs, epochs, seed, log)
    row = {"probe": name, **evaluate(model, data["dev"]), **chosen}
    return row, curves, sentence_scores(model, data["dev"], data["sizes"]["dev"])


def right_branching(sentences) -> tuple[dict, np.ndarray]:
    """Every word's head is the next word; the last word's head is the root. (scores, per sentence:
    correct and scored words)."""
    per = np.zeros((len(sentences), 2), dtype=np.int64)
    for i, s in enumerate(sentences):
        pred = np.arange(2, s.n + 2)  # word j (unit j + 1) -> unit j + 2
        pred[-1] = 0
        per[i] = int(((pred == s.heads) & s.scored).sum()), int(s.scored.sum())
    correct, total = per.sum(0)
    return {"uas": int(correct) / max(int(total), 1), "n_words": int(total)}, per


# the rows of Clark's Table 3, in its order, and the control on a randomly initialised model
TABLE_ORDER = ("attention-only", "attention-and-words", "right-branching", "word-vectors MLP + distance")
RANDOM_INIT = "attention-and-words, random init"


def train_probes(
    sents: dict[str, list[Sentence]], dim: int, probes: ProbeSettings, log=log
) -> tuple[list[dict], list[dict], dict, dict]:
    """The probes on the trained model's maps, in Clark's Table 3 order (word vectors of size ``dim``),
    trained as ``probes`` says (``probes.lrs``: probe name -> learning rates tried), then those of
    ``probes.control_task`` on the control task (rows "<probe>, control task", the probe's learning
    rates; their ``uas``: attachment accuracy on the control heads). Returns (rows of
    the probes table, curve rows, sentences per part: fit / held-out / dev, per probe the correct and
    scored words of every dev sentence)."""
    n_heads, words = sents["train"][0].attn.shape[0], {"dim": dim, "word_alignment": probes.word_alignment}
    make = {
        "attention-only": lambda: AttnProbe(n_heads),
        "attention-and-words": lambda: AttnProbe(n_heads, **words),
        "word-vectors MLP + distance": lambda: MLPProbe(
            hidden=probes.mlp_hidden, distance=probes.mlp_distance, **words
        ),
    }
    unknown = sorted(set(probes.control_task) - set(make))
    if unknown:
        raise ValueError(f"config clark_probes.control_task: {unknown} are not trained probes (known: {sorted(make)})")
    data = split_batches(sents, probes.heldout_fraction, probes.seed, probes.batch_size)
    results, curves, per_sentence = [], [], {}
    tasks = [(name, name, data) for name in TABLE_ORDER]
    if probes.control_task:  # the same sentences and features, each word's head by its type (control_task.py)
        behaviour = behaviours(sents["train"] + sents["dev"], probes.seed)
        heads = lambda s: control_heads(s.words, behaviour)  # noqa: E731
        on_control = relabelled(data, sents, heads, probes.heldout_fraction, probes.seed)
        tasks += [(control_name(name), name, on_control) for name in TABLE_ORDER if name in probes.control_task]
    for name, probe, part in tasks:
        if name == "right-branching":
            row, per_sentence[name] = right_branching(sents["dev"])
            results.append({"probe": name, **row})
            continue
        row, curve, per_sentence[name] = run_probe(
            name, make[probe], part, probes.lrs[probe], probes.epochs, probes.seed, log
        )
        results.append(row)
        curves.extend(curve)
    return results, curves, data["sizes"], per_sentence
