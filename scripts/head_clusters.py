import matplotlib.pyplot as plt
import pandas as pd
import torch

from analysis.clark import head_clusters as hc
from analysis.core.storage import Shards
from analysis.shared.rule_io import save_figure, setup_logging, write_json, write_table

log = setup_logging(snakemake)
torch.set_num_threads(snakemake.threads)
cfg = snakemake.params.cfg
shards = Shards(snakemake.input.shards)
L, H = shards.n_layers, shards.n_heads
dist, counts = hc.accumulate(
    shards, L, H, eps=float(cfg.get("smoothing_eps", 0.0)), max_segments=cfg.get("n_segments"), log=log
)
counts["segments_available"] = len(shards)
counts["segments_skipped"] = len(shards) - counts["segments"]
log.info("distances over %s", counts)
write_table(hc.distance_table(dist, H), snakemake.output.distances)

xy, stress = hc.mds_embedding(dist, seed=int(cfg.get("seed", 0)))
# behaviour colours from the surface tables (every wiki segment), in the distances' layer-major order
heads = hc.behaviour_table(
    *(pd.read_csv(snakemake.input[k]) for k in ("relative_position", "special_tokens", "entropy"))
)
if ((heads["layer"] - 1) * H + heads["head"] - 1).tolist() != list(range(L * H)):
    raise ValueError(f"surface tables hold {len(heads)} heads, not the {L} x {H} of the shards")
heads["x"], heads["y"] = xy[:, 0], xy[:, 1]
heads["behaviour"] = heads.apply(hc.behaviour, axis=1, thresholds=cfg.get("thresholds", {}))
counts.update(
    mds_stress=stress,
    behaviours=heads.behaviour.value_counts().to_dict(),
    thresholds={**hc.DEFAULT_THRESHOLDS, **cfg.get("thresholds", {})},
    behaviour_source="relative_position.csv, special_tokens.csv, entropy.csv (every wiki segment)",
)
log.info("behaviours: %s; MDS stress %.4g", counts["behaviours"], stress)
write_table(heads, snakemake.output.points)
write_json(counts, snakemake.output.counts)

hc.BEHAVIOUR_LABELS.update(cls=shards.header.get("cls_token") or "[CLS]", sep=shards.header.get("sep_token") or "[SEP]")
fig = hc.plot(
    heads,
    shards.header.get("model", snakemake.wildcards.model),
    L,
    subtitle=f"\n{counts['segments']} Wikipedia segments, {counts['tokens']} tokens",
)
save_figure(fig, snakemake.output.figure)
plt.close(fig)
