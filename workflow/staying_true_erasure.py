import torch

from analysis.explanation.staying_true_tests import models_under_test, run_staying_true_erasure
from analysis.shared.rule_io import setup_logging, write_table

setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
p = snakemake.params
models = models_under_test(snakemake.input.model, snakemake.input.glue, p.task, p.n_explain)
write_table(run_staying_true_erasure(models, p.seed), snakemake.output.table)
