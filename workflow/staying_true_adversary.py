from pathlib import Path

import torch

from analysis.explanation.sst2 import read_sst2
from analysis.explanation.staying_true import StayingTrueConfig, load_variants
from analysis.explanation.staying_true_adversary import AdversaryConfig, run_adversary
from analysis.explanation.staying_true_plots import plot_staying_true_adversary
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
p = snakemake.params
bundle = torch.load(snakemake.input.model, weights_only=False)
vocab, models = load_variants(bundle)
raw_dir = Path(snakemake.input.glue).parent
# the models' own training subset (same task, size and seed), its first adversary.n_train sentences
train, _ = read_sst2(raw_dir, "train", p.n_train, p.seed, task=p.task)
dev, _ = read_sst2(raw_dir, "dev", task=p.task)
xs_train = [vocab.ids(w) for w, _ in train]
xs_dev = [vocab.ids(w) for w, _ in dev[: p.n_explain]]
cfg = AdversaryConfig(
    weights=tuple(p.adversary["weights"]),
    n_train=p.adversary["n_train"],
    epochs=p.adversary["epochs"],
    batch_size=p.batch_size,
    lr=p.adversary["lr"],
    seed=p.seed,
)
df = run_adversary(models, xs_train, xs_dev, cfg, StayingTrueConfig(**bundle["cfg"]))
write_table(df, snakemake.output.table)
save_figure(plot_staying_true_adversary(df, snakemake.wildcards.model), snakemake.output.figure)
