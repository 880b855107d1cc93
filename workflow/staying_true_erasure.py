from analysis.explanation.staying_true.attention_tests import models_under_test, run_staying_true_erasure
from analysis.shared.rule_io import start, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
models = models_under_test(snakemake.input.model, snakemake.input.glue, p.task, p.n_explain)
write_table(run_staying_true_erasure(models, p.seed), snakemake.output.table)
