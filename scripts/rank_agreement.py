import torch

from analysis.explanation.plots import plot_rank_agreement
from analysis.explanation.rank_agreement import run_rank_agreement
from analysis.explanation.setup import classifiers_under_test
from analysis.shared.plots import close
from analysis.shared.rule_io import save_figure, setup_logging, write_table

setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
classifiers = classifiers_under_test(
    snakemake.input.model,
    snakemake.input.glue,
    snakemake.params.spec,
    snakemake.params.task,
    snakemake.params.n_explain,
)
df = run_rank_agreement(classifiers)
write_table(df, snakemake.output.table)
fig = plot_rank_agreement(df, snakemake.wildcards.model)
save_figure(fig, snakemake.output.figure)
close(fig)
