from analysis.explanation.staying_true.attention_tests import models_under_test, run_staying_true_erasure
from analysis.shared.rule_io import setup_logging, use_threads, write_table

if "snakemake" not in globals():  # run by hand, to debug: python workflow/<rule>.py key=value ...
    from analysis.shared.rule_io import mock_snakemake

    snakemake = mock_snakemake(__file__)


setup_logging(snakemake)
use_threads(snakemake.threads)
p = snakemake.params
models = models_under_test(snakemake.input.model, snakemake.input.glue, p.task, p.n_explain)
write_table(run_staying_true_erasure(models, p.seed), snakemake.output.table)
