from pathlib import Path

import pandas as pd

from analysis.core.device import load_bundle
from analysis.explanation.replicates import instance_weights, staying_true_adversary_replicates
from analysis.explanation.sst2 import read_sst2
from analysis.explanation.staying_true.adversary import AdversaryConfig
from analysis.explanation.staying_true.adversary_runs import run_adversary
from analysis.explanation.staying_true.curves import equal_jsd_summary
from analysis.explanation.staying_true.models import StayingTrueConfig, load_variants
from analysis.explanation.staying_true.plots import plot_staying_true_adversary
from analysis.shared.bootstrap import with_resampled
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
bundle = load_bundle(snakemake.input.model)  # onto the CPU, whatever device it was saved from
vocab, models = load_variants(bundle)
raw_dir = Path(snakemake.input.glue).parent
# the models' own training subset (same task, size and seed), its first adversary.n_train sentences
train, _ = read_sst2(raw_dir, "train", p.n_train, p.seed, task=p.task)
dev, _ = read_sst2(raw_dir, "dev", task=p.task)
xs_train = [vocab.ids(w) for w, _ in train]
xs_dev = [vocab.ids(w) for w, _ in dev[: p.n_explain]]
a = p.adversary
cfg = AdversaryConfig.from_params(a, batch_size=p.batch_size, seed=p.seed)  # every adversary key, checked
per_instance = []
df = run_adversary(
    models, xs_train, xs_dev, cfg, StayingTrueConfig(**bundle["cfg"]), bundle.get("init_embeddings"), per_instance
)
write_table(df, snakemake.output.table)
summary = equal_jsd_summary(df, cfg.jsd_levels, cfg.bracket_jsd)
write_table(summary, snakemake.output.summary)
instances = pd.concat(per_instance, ignore_index=True)
units, weights = instance_weights(p.bootstrap["resamples"], p.bootstrap["seed"], instances)
write_table(
    with_resampled(staying_true_adversary_replicates(instances, cfg.jsd_levels, units, weights), len(units)),
    snakemake.output.boot,
)
levels = sorted(summary.jsd_level.unique())
save_figure(plot_staying_true_adversary(df, snakemake.wildcards.model, levels), snakemake.output.figure)
