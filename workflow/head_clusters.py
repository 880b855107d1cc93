import numpy as np
import pandas as pd

from analysis.clark.head_clusters import (
    behaviour_table,
    distance_table,
    head_points,
    layer_blocks,
    layer_table,
    mds_embedding,
    plot_head_clusters,
)
from analysis.clark.surface_sums import read_sums
from analysis.shared.bootstrap import unit_weights
from analysis.shared.rule_io import save_figure, setup_logging, use_threads, write_json, write_table

log = setup_logging(snakemake)
use_threads(snakemake)
p = snakemake.params
# the head distances summed shard by shard (surface_sums: the first clark_clusters.n_segments)
parts, metas = read_sums(snakemake.input.sums)
header = metas[0]["header"]
L, H = header["n_layers"], header["n_heads"]
dist = sum(part["js"] for part in parts)
counts = {
    "segments": sum(m["js_segments"] for m in metas),
    "tokens": sum(m["js_tokens"] for m in metas),
    "smoothing_eps": metas[0]["smoothing_eps"],
}
if counts["segments"] == 0:
    raise ValueError("no segments to compute head distances on (clark_clusters.n_segments)")
counts["segments_available"] = sum(m["examples"] for m in metas)
counts["segments_skipped"] = counts["segments_available"] - counts["segments"]
log.info("distances over %s", counts)
write_table(distance_table(dist, H), snakemake.output.distances)
write_table(layer_table(layer_blocks(dist, L, H), H), snakemake.output.layers)
# its replicates (scorecard intervals): the segments of the distances resampled, weights @ each one's layer blocks
if any("unit.js_layers" not in part for part in parts):
    raise ValueError(
        "shard sums without the segments' own head distances (written before they were kept): rerun surface_sums"
    )
units = np.concatenate([part["unit.js_layers"] for part in parts])
w = unit_weights(len(units), int(p.replicates), int(p.seed_boot)).astype(np.float64)
boot = (w @ units.reshape(len(units), -1)).reshape(len(w), L, L)
write_table(layer_table(boot, H), snakemake.output.layers_boot)

xy, stress = mds_embedding(dist, seed=int(p.seed))
# behaviour colours from the surface tables (every wiki segment), in the distances' layer-major order
heads = behaviour_table(*(pd.read_csv(snakemake.input[k]) for k in ("relative_position", "special_tokens", "entropy")))
heads = head_points(heads, xy, L, H, p.thresholds)
counts.update(
    mds_stress=stress,
    behaviours=heads.behaviour.value_counts().to_dict(),
    thresholds=dict(p.thresholds),
    behaviour_source="relative_position.csv, special_tokens.csv, entropy.csv (every wiki segment)",
)
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
