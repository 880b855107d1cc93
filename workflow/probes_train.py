import pandas as pd

from analysis.clark.probes.data import attach_vectors, attach_words, sentences_from_examples, subset_records
from analysis.clark.probes.random_init import random_init_control
from analysis.clark.probes.replicates import sentence_table
from analysis.clark.probes.settings import MapSettings, ProbeSettings
from analysis.clark.probes.tables import probes_table
from analysis.clark.probes.training import RANDOM_INIT, train_probes
from analysis.core.batch import batch_for
from analysis.core.device import device_record, job_device
from analysis.core.inputs import read_jsonl
from analysis.core.model_names import control_draws
from analysis.core.storage import Shards
from analysis.shared.rule_io import start, write_json, write_table
from analysis.shared.vectors import load_vectors

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
seed = int(p.seed)
punct = tuple(p.punct_pos)
counts = {"train": {}, "dev": {}, "train_random_init": {}, "dev_random_init": {}}
device = job_device(snakemake)  # the CPU: the rule asks for no GPU (the probes train on the CPU)

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

probes = ProbeSettings(
    lrs=p.lr,
    epochs=int(p.epochs),
    batch_size=int(p.probe_batch_size),
    heldout_fraction=float(p.heldout_fraction),
    seed=seed,
    mlp_hidden=int(p.mlp_hidden),
    mlp_distance=p.mlp_distance,
    word_alignment=p.word_alignment,
    control_task=tuple(p.control_task),
)
results, curves, sizes, per_sentence = train_probes(sents, vectors.dim, probes, log)
dev_ids = {name: [s.id for s in sents["dev"]] for name in per_sentence}
log.info("sentences: %s (learning rate and epochs chosen on the held-out train sentences)", sizes)
if p.random_init:
    # maps of a randomly initialised model of the same shape, computed here (not stored as shards)
    dev_shards = Shards(snakemake.input.dev)
    maps = MapSettings(
        max_len=p.max_len,
        batch_size=batch_for(p.batch_size, device),
        punct_pos=punct,
        how=p.how,
        device=device,
        # the precision of the trained model's maps, which the control's are compared with
        precision=dev_shards.header["precision"]["used"],
    )
    control = random_init_control(
        control_draws(p.spec, p.random_init_seed)[0],  # another draw where the model is random-init itself
        (dev_shards.n_layers, dev_shards.n_heads),
        records,
        {s.id for s in sents["dev"]},
        vectors,
        maps,
        probes,
        log,
    )
    counts.update(control.counts)
    results.append(control.row)
    curves.extend(control.curve)
    per_sentence[RANDOM_INIT], dev_ids[RANDOM_INIT] = control.per_sentence, control.dev_ids

table = probes_table(results, p.spec, sizes, vectors.source, vectors.dim)
log.info("\n%s", table.to_string(index=False))
write_table(table, snakemake.output.table)
write_table(pd.DataFrame(curves), snakemake.output.curves)
# every probe's correct and scored words per dev sentence: the units of the scorecard's intervals
write_table(sentence_table(per_sentence, dev_ids), snakemake.output.sentences)
write_json({**counts, **device_record(device)}, snakemake.output.info)
