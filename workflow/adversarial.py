import torch

from analysis.explanation.adversarial import run_adversarial
from analysis.explanation.plots import plot_adversarial
from analysis.explanation.setup import rule_classifiers
from analysis.shared.rule_io import save_figure, setup_logging, write_table

setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
classifiers = rule_classifiers(snakemake)
df = run_adversarial(
    classifiers,
    snakemake.params.tolerance,
    snakemake.params.steps,
    snakemake.params.lr,
    snakemake.params.penalty,
    snakemake.params.seed,
)
write_table(df, snakemake.output.table)
fig = plot_adversarial(df, snakemake.wildcards.model, snakemake.params.tolerance)
save_figure(fig, snakemake.output.figure)
