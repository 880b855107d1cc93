import pandas as pd

from analysis.clark.clusters.distances import distance_table, head_distances, layer_distances, layer_replicates
from analysis.clark.clusters.plots import plot_head_clusters
from analysis.clark.clusters.points import cluster_points, point_counts
from analysis.clark.surface.boot import segment_clusters
from analysis.clark.surface.sums import read_sums
from analysis.shared.rule_io import save_figure, start, write_json, write_table

snakemake, log = start(globals(), __file__, threads=True)
p = snakemake.params
# the head distances summed shard by shard (surface_sums: the first clark_clusters.n_segments)
parts, metas = read_sums(snakemake.input.sums)
header = metas[0]["header"]
L, H = header["n_layers"], header["n_heads"]
dist, counts = head_distances(parts, metas)
log.info("distances over %s", counts)
write_table(distance_table(dist, H), snakemake.output.distances)
write_table(layer_distances(dist, L, H), snakemake.output.layers)
# its replicate table (scorecard intervals): the Wikipedia articles of the distances' segments
# resampled, each with all its segments
clusters = segment_clusters(metas, js=True)
write_table(
    layer_replicates(parts, H, p.bootstrap["resamples"], p.bootstrap["seed"], clusters), snakemake.output.layers_boot
)

# behaviour colours from the surface tables (every wiki segment), in the distances' layer-major order
surface = tuple(pd.read_csv(snakemake.input[k]) for k in ("relative_position", "special_tokens", "entropy"))
heads, stress = cluster_points(dist, surface, L, H, p.thresholds, p.seed)
counts.update(point_counts(heads, stress, p.thresholds))
log.info("behaviours: %s; MDS stress %.4g", counts["behaviours"], stress)
write_table(heads, snakemake.output.points)
write_json(counts, snakemake.output.counts)

fig = plot_head_clusters(
    heads,
    header.get("model") or snakemake.wildcards.model,
    L,
    subtitle=f"\n{counts['segments']} Wikipedia segments, {counts['tokens']} tokens",
    cls_token=header.get("cls_token") or "[CLS]",
    sep_token=header.get("sep_token") or "[SEP]",
)
save_figure(fig, snakemake.output.figure)
