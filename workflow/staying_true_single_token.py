from analysis.explanation.replicates import instance_weights, staying_true_single_token_replicates
from analysis.explanation.staying_true.attention_tests import models_under_test, run_single_token, single_token_summary
from analysis.explanation.staying_true.plots import plot_staying_true_single_token
from analysis.shared.bootstrap import with_resampled
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
models = models_under_test(snakemake.input.model, snakemake.input.glue, p.task, p.n_explain)
df = run_single_token(models)
write_table(df, snakemake.output.table)
write_table(single_token_summary(df), snakemake.output.summary)
units, weights = instance_weights(p.bootstrap["resamples"], p.bootstrap["seed"], df)
write_table(with_resampled(staying_true_single_token_replicates(df, units, weights), len(units)), snakemake.output.boot)
save_figure(plot_staying_true_single_token(df, snakemake.wildcards.model), snakemake.output.figure)
