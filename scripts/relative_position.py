from analysis.clark.surface import accumulate, per_head_table, relative_position_stats
from analysis.clark.surface_plots import plot_relative_position
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, setup_logging, write_table

log = setup_logging(snakemake)
shards = Shards(snakemake.input)
sums, n = accumulate(shards, relative_position_stats)
t = per_head_table(sums)
write_table(t, snakemake.output.table)

fig = plot_relative_position(t, shards.header["model"], n)
save_figure(fig, snakemake.output.figure)
for col in ["prev", "next"]:
    strong = t[t[col] > 0.5]
    log.info(
        "%d heads put > 50%% on %s: %s", len(strong), col, [f"{a}-{b}" for a, b in zip(strong.layer, strong["head"])]
    )
