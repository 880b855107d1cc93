from analysis.clark.surface import accumulate, by_layer, per_head_table, sep_attention_stats
from analysis.clark.surface_plots import plot_sep_attention
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, setup_logging, write_table

setup_logging(snakemake)
shards = Shards(snakemake.input)
sums, n = accumulate(shards, sep_attention_stats)
t = per_head_table(sums)
write_table(t, snakemake.output.table)
write_table(by_layer(t, ["sep_from_sep", "sep_from_other"]), snakemake.output.layers)

fig = plot_sep_attention(t, shards.header["model"], n, shards.header["sep_token"])
save_figure(fig, snakemake.output.figure)
