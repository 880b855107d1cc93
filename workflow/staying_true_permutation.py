from analysis.explanation.replicates import instance_weights, staying_true_permutation_replicates
from analysis.explanation.staying_true.attention_tests import (
    models_under_test,
    permutation_summary,
    run_staying_true_permutation,
)
from analysis.explanation.staying_true.plots import plot_staying_true_permutation
from analysis.shared.bootstrap import with_resampled
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
models = models_under_test(snakemake.input.model, snakemake.input.glue, p.task, p.n_explain)
df = run_staying_true_permutation(models, p.n_permutations, p.seed)
summary = permutation_summary(df)
write_table(df, snakemake.output.table)
write_table(summary, snakemake.output.summary)
units, weights = instance_weights(p.bootstrap["resamples"], p.bootstrap["seed"], df)
write_table(with_resampled(staying_true_permutation_replicates(df, units, weights), len(units)), snakemake.output.boot)
save_figure(plot_staying_true_permutation(df, summary, snakemake.wildcards.model), snakemake.output.figure)
