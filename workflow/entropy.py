from analysis.clark.surface.boot import replicate_tables, segment_clusters
from analysis.clark.surface.plots import plot_entropy
from analysis.clark.surface.sums import combine, read_sums
from analysis.shared.attention_stats import by_layer, per_head_table
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
parts, metas = read_sums(snakemake.input)
# the replicate table (scorecard intervals): the Wikipedia articles resampled, each with all its segments
BOOT = (snakemake.params.bootstrap["resamples"], snakemake.params.bootstrap["seed"])
t = per_head_table(combine(parts, "entropy"))
n = sum(m["examples"] for m in metas)
write_table(t, snakemake.output.table)
METRICS = ["entropy", "uniform_entropy", "entropy_cls", "uniform_entropy_cls"]
write_table(by_layer(t, METRICS), snakemake.output.layers)
boot = replicate_tables(parts, "entropy", *BOOT, layers=METRICS, clusters=segment_clusters(metas))
write_table(boot["layers"], snakemake.output.layers_boot)

h = metas[0]["header"]
fig = plot_entropy(t, h["model"], n, h["cls_token"], local=snakemake.params.local_layers)
save_figure(fig, snakemake.output.figure)
