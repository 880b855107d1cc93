import pandas as pd

from analysis.beyond_papers.head_compare import spearman_by_task, with_disabled
from analysis.beyond_papers.plots import plot_head_importance
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
importance = pd.concat([pd.read_csv(p) for p in snakemake.input.importance], ignore_index=True)
disabled = pd.concat([pd.read_csv(p) for p in snakemake.input.disabled], ignore_index=True)
merged = with_disabled(importance, disabled)
rho = spearman_by_task(merged)
write_table(merged.drop(columns=["seconds"]), snakemake.output.table)
write_table(rho, snakemake.output.spearman)
log.info("gradient importance vs disabled heads:\n%s", rho.to_string())
title = f"{snakemake.wildcards.model}: gradient head importance (Michel et al.) vs disabling the head (Kovaleva et al.)"
save_figure(plot_head_importance(merged, rho, title), snakemake.output.figure)
