import json

from analysis.kovaleva.finetune_plots import plot_finetune_scores
from analysis.kovaleva.finetune_tables import scores_table
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
t = scores_table([json.load(open(path)) for path in snakemake.input])
write_table(t, snakemake.output.table)
log.info("\n%s", t.to_string())

fig = plot_finetune_scores(t, snakemake.wildcards.model)
save_figure(fig, snakemake.output.figure)
