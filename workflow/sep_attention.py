from analysis.clark.surface.boot import segment_clusters
from analysis.clark.surface.metrics import SEP_ATTENTION
from analysis.clark.surface.plots import plot_sep_attention
from analysis.clark.surface.sink import choose_sink, sink_table
from analysis.clark.surface.tables import SurfaceSums
from analysis.shared.attention_stats import by_layer, per_head_table
from analysis.shared.bootstrap import n_clusters, with_resampled
from analysis.shared.rule_io import save_figure, start, write_table

snakemake, log = start(globals(), __file__)
# the replicate table (scorecard intervals): the Wikipedia articles resampled, each with all its segments
sums = SurfaceSums.read(snakemake.input, **snakemake.params.bootstrap)
sep = sums.sums("sep_attention")
if "cls_from_cls" not in sep:
    raise ValueError(
        "shard sums without the attention to [CLS] (written before it was kept): rerun surface_sums "
        "(snakemake --forcerun surface_sums ...)"
    )
t = per_head_table(sep)
write_table(t, snakemake.output.table)
write_table(by_layer(t, SEP_ATTENTION), snakemake.output.layers)
# [SEP]'s columns, and [CLS]'s for the sink-agnostic claims (the sink: whichever draws the most attention)
SINK_COLUMNS = ["sep_from_sep", "sep_from_other", "cls_from_cls", "cls_from_other"]
sep_boot = sums.boot("sep_attention", layers=SINK_COLUMNS)["layers"]
write_table(sep_boot.drop(columns=["cls_from_cls", "cls_from_other"]), snakemake.output.layers_boot)

special = by_layer(sums.table("special_tokens"), ["cls", "sep"])
sink = choose_sink(special)
log.info("attention sink: %s (strongest layer share: %s)", sink, special[list(special.columns[1:])].max().to_dict())
write_table(sink_table(special, by_layer(t, SINK_COLUMNS), sink), snakemake.output.sink)
special_boot = sums.boot("special_tokens", layers=["cls", "sep"])["layers"]
sink_boot = sink_table(special_boot, sep_boot, sink)
write_table(with_resampled(sink_boot, n_clusters(segment_clusters(sums.metas))), snakemake.output.sink_boot)

h = sums.header
fig = plot_sep_attention(t, h["model"], sums.n_examples, h["sep_token"], local=snakemake.params.local_layers)
save_figure(fig, snakemake.output.figure)
