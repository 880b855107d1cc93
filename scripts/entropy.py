from analysis.clark.surface import accumulate, by_layer, entropy_stats, per_head_table
from analysis.clark.surface_plots import plot_entropy
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, setup_logging, write_table

setup_logging(snakemake)
shards = Shards(snakemake.input)
sums, n = accumulate(shards, entropy_stats)
t = per_head_table(sums)
write_table(t, snakemake.output.table)
write_table(by_layer(t, ["entropy", "uniform_entropy", "entropy_cls", "uniform_entropy_cls"]), snakemake.output.layers)

fig = plot_entropy(t, shards.header["model"], n, shards.header["cls_token"])
save_figure(fig, snakemake.output.figure)
