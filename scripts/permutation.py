import pandas as pd
import torch

from analysis.explanation.attn_classifiers import load_explainers, load_for_tests
from analysis.explanation.faithfulness import permutation_rows, pooled_instances
from analysis.explanation.plots import plot_permutation
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg = snakemake.params.cfg
bundle, dev, tf = load_for_tests(
    snakemake.input.model, snakemake.input.glue, snakemake.params.spec, cfg["task"], cfg["n_explain"]
)
rows = []
for enc, ex in load_explainers(bundle, tf).items():
    inst = pooled_instances(ex, dev, cfg["n_explain"])
    rows += [{"encoder": enc, **r} for r in permutation_rows(inst, ex, cfg["n_permutations"], cfg["seed"])]
    log.info("%s: %d instances", enc, len(inst))
df = pd.DataFrame(rows)
write_table(df, snakemake.output.table)
save_figure(plot_permutation(df, snakemake.wildcards.model), snakemake.output.figure)
