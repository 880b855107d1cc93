from analysis.clark.surface import accumulate, by_layer, per_head_table, special_tokens_stats
from analysis.clark.surface_plots import plot_special_tokens
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, setup_logging, write_table

setup_logging(snakemake)
shards = Shards(snakemake.input)
sums, n = accumulate(shards, special_tokens_stats)
t = per_head_table(sums)
write_table(t, snakemake.output.table)
write_table(by_layer(t, ["cls", "sep", "punct"]), snakemake.output.layers)

h = shards.header
fig = plot_special_tokens(t, h["model"], n, h["cls_token"], h["sep_token"])
save_figure(fig, snakemake.output.figure)
