from analysis.explanation.replicates import instance_weights, staying_true_permutation_replicates
from analysis.explanation.staying_true.attention_tests import (
    models_under_test,
    permutation_summary,
    run_staying_true_permutation,
)
from analysis.explanation.staying_true.plots import plot_staying_true_permutation
from analysis.shared.bootstrap import with_resampled
from analysis.shared.rule_io import save_figure, setup_logging, use_threads, write_table

if "snakemake" not in globals():  # run by hand, to debug: python workflow/<rule>.py key=value ...
    from analysis.shared.rule_io import mock_snakemake

    snakemake = mock_snakemake(__file__)


setup_logging(snakemake)
use_threads(snakemake.threads)
p = snakemake.params
models = models_under_test(snakemake.input.model, snakemake.input.glue, p.task, p.n_explain)
df = run_staying_true_permutation(models, p.n_permutations, p.seed)
summary = permutation_summary(df)
write_table(df, snakemake.output.table)
write_table(summary, snakemake.output.summary)
units, weights = instance_weights(p.bootstrap["resamples"], p.bootstrap["seed"], df)
write_table(with_resampled(staying_true_permutation_replicates(df, units, weights), len(units)), snakemake.output.boot)
save_figure(plot_staying_true_permutation(df, summary, snakemake.wildcards.model), snakemake.output.figure)
