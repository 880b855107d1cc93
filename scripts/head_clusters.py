import pandas as pd
import torch

from analysis.clark.head_clusters import (
    accumulate,
    behaviour_table,
    distance_table,
    head_points,
    mds_embedding,
    plot_head_clusters,
)
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, setup_logging, write_json, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
p = snakemake.params
shards = Shards(snakemake.input.shards)
L, H = shards.n_layers, shards.n_heads
dist, counts = accumulate(shards, L, H, eps=float(p.smoothing_eps), max_segments=p.n_segments, log=log)
counts["segments_available"] = len(shards)
counts["segments_skipped"] = len(shards) - counts["segments"]
log.info("distances over %s", counts)
write_table(distance_table(dist, H), snakemake.output.distances)

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
    shards.header.get("model", snakemake.wildcards.model),
    L,
    subtitle=f"\n{counts['segments']} Wikipedia segments, {counts['tokens']} tokens",
    cls_token=shards.header.get("cls_token") or "[CLS]",
    sep_token=shards.header.get("sep_token") or "[SEP]",
)
save_figure(fig, snakemake.output.figure)
