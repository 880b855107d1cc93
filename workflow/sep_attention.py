from analysis.clark.surface.boot import replicate_tables, segment_clusters
from analysis.clark.surface.plots import plot_sep_attention
from analysis.clark.surface.sums import combine, read_sums
from analysis.shared.attention_stats import by_layer, per_head_table
from analysis.shared.rule_io import save_figure, setup_logging, write_table

if "snakemake" not in globals():  # run by hand, to debug: python workflow/<rule>.py key=value ...
    from analysis.shared.rule_io import mock_snakemake

    snakemake = mock_snakemake(__file__)


setup_logging(snakemake)
parts, metas = read_sums(snakemake.input)
# the replicate table (scorecard intervals): the Wikipedia articles resampled, each with all its segments
BOOT = (snakemake.params.bootstrap["resamples"], snakemake.params.bootstrap["seed"])
t = per_head_table(combine(parts, "sep_attention"))
n = sum(m["examples"] for m in metas)
write_table(t, snakemake.output.table)
write_table(by_layer(t, ["sep_from_sep", "sep_from_other"]), snakemake.output.layers)
boot = replicate_tables(
    parts, "sep_attention", *BOOT, layers=["sep_from_sep", "sep_from_other"], clusters=segment_clusters(metas)
)
write_table(boot["layers"], snakemake.output.layers_boot)

h = metas[0]["header"]
fig = plot_sep_attention(t, h["model"], n, h["sep_token"], local=snakemake.params.local_layers)
save_figure(fig, snakemake.output.figure)
