import pandas as pd
import torch

from analysis.explanation.attn_classifiers import load_explainers, load_for_tests
from analysis.explanation.faithfulness import pooled_instances, rank_agreement_rows
from analysis.explanation.plots import plot_rank_agreement
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg = snakemake.params.cfg
bundle, dev, tf = load_for_tests(
    snakemake.input.model, snakemake.input.glue, snakemake.params.spec, cfg["task"], cfg["n_explain"]
)
rows = []
for enc, ex in load_explainers(bundle, tf).items():
    res = rank_agreement_rows(pooled_instances(ex, dev, cfg["n_explain"]), ex)
    rows += [{"encoder": enc, **r} for r in res]
    nan = sum(pd.isna(r["tau_gradient"]) or pd.isna(r["tau_leave_one_out"]) for r in res)
    log.info("%s: %d instances, %d with an undefined tau (n < 2 or constant importance)", enc, len(res), nan)
df = pd.DataFrame(rows)
write_table(df, snakemake.output.table)
save_figure(plot_rank_agreement(df, snakemake.wildcards.model), snakemake.output.figure)
