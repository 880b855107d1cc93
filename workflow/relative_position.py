from analysis.clark.surface.boot import replicate_tables, segment_clusters
from analysis.clark.surface.plots import plot_relative_position
from analysis.clark.surface.sums import combine, read_sums
from analysis.shared.attention_stats import per_head_table
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
parts, metas = read_sums(snakemake.input)
# the replicate table (scorecard intervals): the Wikipedia articles resampled, each with all its segments
BOOT = (snakemake.params.bootstrap["resamples"], snakemake.params.bootstrap["seed"])
t = per_head_table(combine(parts, "relative_position"))
n = sum(m["examples"] for m in metas)
write_table(t, snakemake.output.table)
boot = replicate_tables(
    parts, "relative_position", *BOOT, per_head=["prev", "current", "next"], clusters=segment_clusters(metas)
)
write_table(boot["heads"], snakemake.output.boot)

fig = plot_relative_position(t, metas[0]["header"]["model"], n, local=snakemake.params.local_layers)
save_figure(fig, snakemake.output.figure)
for col in ["prev", "next"]:
    strong = t[t[col] > 0.5]
    log.info(
        "%d heads put > 50%% on %s: %s", len(strong), col, [f"{a}-{b}" for a, b in zip(strong.layer, strong["head"])]
    )
