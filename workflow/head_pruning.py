import pandas as pd

from analysis.beyond_papers.head_compare import pruning_summary
from analysis.beyond_papers.plots import plot_head_pruning
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
curves = pd.concat([pd.read_csv(p) for p in snakemake.input], ignore_index=True)
write_table(curves.drop(columns=["seconds"]), snakemake.output.table)
summary = pruning_summary(curves)
write_table(summary, snakemake.output.summary)
log.info("pruning:\n%s\nseconds per task: %s", summary.to_string(), curves.groupby("task").seconds.first().to_dict())
title = f"{snakemake.wildcards.model}: pruning heads by gradient importance (Michel et al.) vs random order"
save_figure(plot_head_pruning(curves, title), snakemake.output.figure)
