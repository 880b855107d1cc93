import pandas as pd
import torch

from analysis.clark.probe_data import (
    attach_vectors,
    attach_words,
    random_init_sentences,
    sentences_from_examples,
    subset_records,
)
from analysis.clark.probe_models import AttnProbe
from analysis.clark.probe_replicates import sentence_table
from analysis.clark.probe_training import RANDOM_INIT, probes_table, run_probe, split_batches, train_probes
from analysis.core.inputs import read_jsonl
from analysis.core.storage import Shards
from analysis.shared.rule_io import setup_logging, write_json, write_table
from analysis.shared.vectors import load_vectors

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
p = snakemake.params
seed = int(p.seed)
punct = tuple(p.punct_pos)
counts = {"train": {}, "dev": {}, "train_random_init": {}, "dev_random_init": {}}

records = {"train": read_jsonl(snakemake.input.train_records), "dev": read_jsonl(snakemake.input.dev_records)}
records["train"] = subset_records(records["train"], p.max_train_sentences, seed, "train", counts, log)
keep_ids = {r["id"] for r in records["train"]}
sents = {}
for split, shards in (("train", snakemake.input.train), ("dev", snakemake.input.dev)):
    ex = (e for e in Shards(shards) if split == "dev" or e.id in keep_ids)
    sents[split] = attach_words(sentences_from_examples(ex, punct, p.how, counts[split]), records[split])
    log.info("%s: %s", split, counts[split])

vectors = load_vectors(p.vectors)
for split in sents:
    counts[split]["vectors"] = attach_vectors(sents[split], vectors)
    log.info("%s words: %s out of vocabulary of %s", split, counts[split]["vectors"], vectors.source)

epochs, batch_size, fraction = int(p.epochs), int(p.probe_batch_size), float(p.heldout_fraction)
results, curves, sizes, per_sentence = train_probes(
    sents, vectors.dim, p.lr, epochs, batch_size, int(p.mlp_hidden), seed, fraction, log
)
dev_ids = {name: [s.id for s in sents["dev"]] for name in per_sentence}
log.info("sentences: %s (learning rate and epochs chosen on the held-out train sentences)", sizes)
if p.random_init:
    # maps of a randomly initialised model of the same shape, computed here (not stored as shards)
    dev_shards = Shards(snakemake.input.dev)
    rsents = random_init_sentences(
        p.spec,
        records,
        (dev_shards.n_layers, dev_shards.n_heads),
        {s.id for s in sents["dev"]},
        p.max_len,
        int(p.batch_size),
        punct,
        p.how,
        counts,
    )
    for split in rsents:
        attach_vectors(rsents[split], vectors)
        log.info("%s (random init): %s", split, counts[f"{split}_random_init"])
    data = split_batches(rsents, fraction, seed, batch_size)
    n_heads = sents["train"][0].attn.shape[0]
    row, curve, per_sentence[RANDOM_INIT] = run_probe(
        RANDOM_INIT, lambda: AttnProbe(n_heads, dim=vectors.dim), data, p.lr[RANDOM_INIT], epochs, seed, log
    )
    dev_ids[RANDOM_INIT] = [s.id for s in rsents["dev"]]
    results.append(row)
    curves.extend(curve)

table = probes_table(results, p.spec, sizes, vectors.source, vectors.dim)
log.info("\n%s", table.to_string(index=False))
write_table(table, snakemake.output.table)
write_table(pd.DataFrame(curves), snakemake.output.curves)
# every probe's correct and scored words per dev sentence: the units of the scorecard's intervals
write_table(sentence_table(per_sentence, dev_ids), snakemake.output.sentences)
write_json(counts, snakemake.output.info)
